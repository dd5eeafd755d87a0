"""Seconds written as plain decimal text, for line-based annotation formats.

RTTM, UEM, STM and CTM carry times as decimal seconds. Writing them through the
microsecond time base (:mod:`speecheval.core.timebase`) gives the same text for the same
time whatever float noise it carries, so written files are byte-stable and re-reading
them gives back the microsecond values that were scored.
"""

from __future__ import annotations

import math

from .timebase import US_PER_S, to_us

MIN_DECIMALS = 3


def format_seconds(seconds: float) -> str:
    """Decimal text of ``seconds`` rounded to the microsecond, at least 3 decimals.

    >>> format_seconds(0.558)
    '0.558'
    >>> format_seconds(6.32000000000005)
    '6.320'
    >>> format_seconds(12.0000015)
    '12.000002'
    >>> format_seconds(-0.25)
    '-0.250'
    """
    us = to_us(seconds)
    sign = "-" if us < 0 else ""
    whole, frac = divmod(abs(us), US_PER_S)
    digits = f"{frac:06d}".rstrip("0").ljust(MIN_DECIMALS, "0")
    return f"{sign}{whole}.{digits}"


def parse_seconds(text: str) -> float:
    """Parse a finite decimal number of seconds; ``ValueError`` names the bad text.

    >>> parse_seconds("4.698")
    4.698
    >>> parse_seconds("nan")
    Traceback (most recent call last):
    ...
    ValueError: not a finite number of seconds: 'nan'
    """
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"not a finite number of seconds: {text!r}")
    return value
