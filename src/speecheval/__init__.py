"""speecheval: measure spoken-dialogue systems from their audio."""

__version__ = "0.1.0"
