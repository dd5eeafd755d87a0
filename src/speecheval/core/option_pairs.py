"""``-o KEY=VALUE`` options as given on a command line, before any command interprets them.

One parser for every command that passes options on to an agent (``fdb10 record``,
``fdb10 demo``, ``agents serve cascade``), so a malformed pair reads the same everywhere.
"""

from __future__ import annotations

from .errors import InputError


def parse_option_pairs(pairs: tuple[str, ...]) -> dict[str, str]:
    """The pairs as a dict of raw strings; a pair without ``=`` or without a key exits 2."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"-o expects KEY=VALUE, got {pair!r}")
        options[key] = value
    return options
