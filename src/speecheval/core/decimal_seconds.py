"""Seconds written as plain decimal text, for line-based annotation formats.

RTTM, UEM, STM and CTM carry times as decimal seconds. Writing them through the
microsecond time base (:mod:`speecheval.core.timebase`) gives the same text for the same
time whatever float noise it carries, so written files are byte-stable and re-reading
them gives back the microsecond values that were scored.
"""

from __future__ import annotations

import math
import re

from .timebase import US_PER_S, to_us

MIN_DECIMALS = 3
# No recording lasts 3 years; the limit keeps every microsecond sum exact in int64/float64.
MAX_SECONDS = 1e8
_PLAIN_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


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


def parse_decimal(text: str, what: str = "number") -> float:
    """Parse a plain, finite decimal number; ``ValueError`` names ``what`` and the bad text.

    Plain means ASCII digits with an optional sign, decimal point and exponent (``1e-05``,
    as Python writes small floats). Python's ``float`` also reads ``1_000``, ``nan``,
    ``inf`` and non-ASCII digits, which no annotation tool writes and md-eval or dscore
    would read differently or not at all, so those are refused.

    >>> parse_decimal("-0.25"), parse_decimal("1e-05"), parse_decimal(".5")
    (-0.25, 1e-05, 0.5)
    >>> parse_decimal("1_000")
    Traceback (most recent call last):
    ...
    ValueError: not a number: '1_000' (plain decimal digits only, such as 1000.5)
    >>> parse_decimal("1e400", "number of seconds")
    Traceback (most recent call last):
    ...
    ValueError: not a finite number of seconds: '1e400'
    """
    if not _PLAIN_DECIMAL.fullmatch(text):
        raise ValueError(f"not a {what}: {text!r} (plain decimal digits only, such as 1000.5)")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"not a finite {what}: {text!r}")
    return value


def parse_seconds(text: str) -> float:
    """Parse a decimal number of seconds of at most :data:`MAX_SECONDS` in size;
    ``ValueError`` names the bad text.

    >>> parse_seconds("4.698")
    4.698
    >>> parse_seconds("nan")
    Traceback (most recent call last):
    ...
    ValueError: not a number of seconds: 'nan' (plain decimal digits only, such as 1000.5)
    >>> parse_seconds("2e8")
    Traceback (most recent call last):
    ...
    ValueError: '2e8' seconds is more than 1e+08 s (3 years): not a time in a recording
    """
    value = parse_decimal(text, "number of seconds")
    if abs(value) > MAX_SECONDS:
        raise ValueError(f"{text!r} seconds is more than {MAX_SECONDS:g} s (3 years): not a "
                         "time in a recording")
    return value
