"""Transports to the system under test, shared by live sessions and FDB capture."""
