"""Canonical JSON: the same data always serialises to the same bytes.

Rules: keys sorted; floats rounded to 9 decimal places and written in Python's shortest
round-trip form (so ``0.1`` stays ``0.1`` and ``2.0`` stays ``2.0``); NaN and infinity are
refused because a missing value is ``null``; UTF-8; a trailing newline. Tuples are written
as lists. Dataclasses are not accepted implicitly: callers convert them on purpose.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

FLOAT_DECIMALS = 9


def normalise(value: Any) -> Any:
    """Return ``value`` with floats rounded and containers made plain, refusing NaN/inf.

    >>> normalise({"b": 1 / 3, "a": (1, 2.0)})
    {'b': 0.333333333, 'a': [1, 2.0]}
    >>> normalise(-0.0)
    0.0
    """
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"non-finite float {value!r} cannot be written; use null")
        rounded = round(value, FLOAT_DECIMALS)
        return 0.0 if rounded == 0 else rounded
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"JSON object keys must be strings, got {key!r}")
            out[key] = normalise(item)
        return out
    if isinstance(value, list | tuple):
        return [normalise(item) for item in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        return normalise(value.item())
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def dumps(value: Any) -> str:
    """Pretty canonical JSON document with a trailing newline.

    >>> print(dumps({"b": [1, 0.5], "a": None}), end="")
    {
      "a": null,
      "b": [
        1,
        0.5
      ]
    }
    """
    return json.dumps(normalise(value), sort_keys=True, indent=2, ensure_ascii=False,
                      allow_nan=False) + "\n"


def dumps_line(value: Any) -> str:
    """Compact canonical JSON on one line, newline-terminated (for JSON Lines).

    >>> dumps_line({"b": 1.25, "a": "x"})
    '{"a":"x","b":1.25}\\n'
    """
    return json.dumps(normalise(value), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, allow_nan=False) + "\n"


def dumps_lines(rows: Iterable[Any]) -> str:
    """JSON Lines document: one compact canonical object per line."""
    return "".join(dumps_line(row) for row in rows)
