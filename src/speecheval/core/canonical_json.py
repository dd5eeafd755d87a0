"""Canonical JSON: the same data always serialises to the same bytes.

Rules: keys sorted; floats written in Python's shortest round-trip form (so ``0.1`` stays
``0.1`` and ``2.0`` stays ``2.0``) after rounding (below); NaN and infinity are refused
because a missing value is ``null``; UTF-8; a trailing newline. Tuples are written as lists.
Dataclasses are not accepted implicitly: callers convert them on purpose.

Rounding, so that a small value keeps its significant digits: a float of magnitude at least
``1e-4`` is rounded to 9 decimal places, which keeps at least 6 significant digits (the
rule every file had before small values were handled, so those bytes do not move); a nonzero
float of smaller magnitude is rounded to 9 significant digits instead (scipy's p of
``4.785e-13`` is written ``4.785e-13``, not ``0.0``; ``6.138e-09`` stays ``6.138e-09``
rather than becoming ``6e-09``). Python writes such a value in exponent form
(``1.23456789e-05``); every JSON reader reads it back as the same float. Exact zero, and
``-0.0``, are written ``0.0``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

FLOAT_DECIMALS = 9
SIGNIFICANT_DIGITS = 9
SMALL_MAGNITUDE = 1e-4
"""Below this magnitude 9 decimals would keep fewer than 6 significant digits, so a float
is rounded to ``SIGNIFICANT_DIGITS`` significant digits instead."""


def round_float(value: float) -> float:
    """``value`` rounded the way every speecheval file writes it (see the module rules).

    >>> [round_float(v) for v in (1 / 3, 2.0, 4.785e-13, 6.138e-09, 0.000123456789123, -0.0)]
    [0.333333333, 2.0, 4.785e-13, 6.138e-09, 0.000123457, 0.0]
    >>> round_float(1 / 30000)
    3.33333333e-05
    """
    if value == 0:
        return 0.0
    if abs(value) >= SMALL_MAGNITUDE:
        return round(value, FLOAT_DECIMALS)
    return float(f"{value:.{SIGNIFICANT_DIGITS - 1}e}")


def normalise(value: Any) -> Any:
    """Return ``value`` with floats rounded (``round_float``) and containers made plain,
    refusing NaN/inf.

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
        return round_float(value)
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
