"""``-o KEY=VALUE`` options as given on a command line, before any command interprets them.

The one parser for every command that passes options on to an agent (``session run``,
``session load``, ``session mock-server``, ``fdb10 record``, ``fdb10 demo``, ``agents
serve cascade``), so a pair reads the same everywhere: the key is what comes before the
first ``=`` without surrounding spaces, the value everything after it, as typed; a pair
without ``=`` or without a key exits 2. A key given twice keeps its last value.

In-process agents (the mock, a ``module:Class`` virtual-clock agent) take the values
parsed as YAML (:func:`yaml_values`); transports take the text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import InputError


def parse_option_pairs(pairs: tuple[str, ...]) -> dict[str, str]:
    """The pairs as a dict of raw strings; a pair without ``=`` or without a key exits 2."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"-o expects key=value, got {pair!r}")
        options[key] = value
    return options


def yaml_values(options: Mapping[str, str]) -> dict[str, Any]:
    """The values parsed as YAML (``""`` stays ``""``), for in-process agents.

    The YAML is read by the loader that reads scenarios (:mod:`speecheval.core.schema`),
    so a value is held to the same limits (an alias bomb is refused) and gives plain data.
    """
    from .schema import parse_document  # pydantic only when a command runs

    parsed: dict[str, Any] = {}
    for key, value in options.items():
        try:
            parsed[key] = parse_document(value, "yaml", what="value").data if value else ""
        except InputError as exc:
            raise InputError(f"-o {key}: value {value!r}: {exc.problem}") from None
    return parsed
