"""Shared foundation: audio I/O, the microsecond time base and time spans
(``timeline``), typed results, shares and provenance records (``results``, ``share``,
``provenance``), input file schemas (``schema``), statistics, hashing, deterministic
output.

Nothing in ``core`` imports a benchmark, a transport or a model. See
``docs/architecture.md`` for the layers and the API.
"""
