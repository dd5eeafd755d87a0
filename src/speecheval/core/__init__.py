"""Shared foundation: audio I/O, time rounding, statistics, hashing, deterministic output.

Nothing in ``core`` imports a benchmark, a transport or a model.
"""
