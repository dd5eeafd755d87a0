"""Numbers for people: one way to write a fixed-decimal number and a percentage.

Every report (text, Markdown, HTML) writes its numbers through these two functions, so a
value reads the same everywhere and a missing value is always named, never printed as
``None`` or ``nan``. The files for machines (JSON) keep fractions and ``null``.
"""

from __future__ import annotations

MISSING = "n/a"


def fixed(value: float | None, digits: int = 3, *, unit: str = "",
          missing: str = MISSING) -> str:
    """``value`` with ``digits`` decimals and ``unit`` appended; ``missing`` when absent.

    >>> fixed(0.1234), fixed(2.5, 1, unit=" s"), fixed(None), fixed(None, missing="-")
    ('0.123', '2.5 s', 'n/a', '-')
    """
    return missing if value is None else f"{value:.{digits}f}{unit}"


def percent(fraction: float | None, digits: int = 2, *, missing: str = MISSING) -> str:
    """A fraction written as a percentage with ``digits`` decimals.

    >>> percent(0.123456), percent(1.0, 0), percent(None)
    ('12.35%', '100%', 'n/a')
    """
    return missing if fraction is None else f"{100 * fraction:.{digits}f}%"
