"""A leaderboard: one row per system, one column per headline estimate, the best marked.

Why a module of its own: every family's report opens with the same kind of table (each
value with its interval and the coverage beside it), and the rule for the mark is the
part a reader trusts or not. A value is marked best only when it is the best of its
column *and* its interval does not overlap the interval of any other system that has
one: a lower median whose interval still reaches the next system's is not a win, so it is
not marked. A system without an estimate (no trial had a value) neither wins nor blocks;
a column with fewer than two estimates marks nothing.

Interval endpoints are floats; a latency quantile that is *not reached* (it lands on the
censored trials) is ``math.inf``, so a system whose median is not reached loses against
any finite one without special cases.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .table import Align, Table

Better = Literal["lower", "higher", "none"]

BEST_MARK = " \u25b2 best"
"""Appended to the marked cell, so the mark is in the text (and the console) too."""
BEST_TONE = "pass"
"""The style sheet's class for the marked cell."""


@dataclass(frozen=True)
class Estimate:
    """One system's value in one column: the cell text, the value and its interval
    (``None`` when there is no estimate), and the coverage (``4/5``) shown beside it."""

    text: str
    value: float | None
    interval: tuple[float, float] | None
    coverage: str


@dataclass(frozen=True)
class Column:
    """One headline estimate: its title, which way is better, one estimate per system."""

    title: str
    better: Better
    cells: tuple[Estimate, ...]


def label_then_numbers(left: int, numbers: int) -> list[Align]:
    """The alignment of a table whose first ``left`` columns are labels and the rest
    numbers (which :func:`.table.alignments` would not guess for cells like ``n/a``)."""
    start: list[Align] = ["left"]
    rest: list[Align] = ["right"]
    return [*(start * left), *(rest * numbers)]


@dataclass(frozen=True)
class Point:
    """A value and its interval as numbers to compare; a bound the data never reached is
    infinite."""

    value: float
    low: float
    high: float


def best_point(points: Sequence[Point | None], better: str) -> int | None:
    """The position of the system whose value is best and whose interval overlaps no
    other's (touching ends overlap), or ``None``: the one rule of both report pages.

    Only ``lower`` and ``higher`` columns have a best, at least two systems need a value,
    and an unbounded best (a latency median never reached) is never marked.

    >>> best_point([Point(0.1, 0.0, 0.2), Point(0.5, 0.3, 0.7)], "lower")
    0
    >>> best_point([Point(0.1, 0.0, 0.3), Point(0.5, 0.3, 0.7)], "lower") is None
    True
    """
    present = [(i, p) for i, p in enumerate(points) if p is not None]
    if better not in ("lower", "higher") or len(present) < 2:
        return None
    sign = 1 if better == "lower" else -1
    index, best = min(present, key=lambda item: (sign * item[1].value, item[0]))
    if not math.isfinite(best.value):
        return None
    others = [p for i, p in present if i != index]
    apart = (all(best.high < p.low for p in others) if better == "lower"
             else all(best.low > p.high for p in others))
    return index if apart else None


def best_index(column: Column) -> int | None:
    """The position of the marked system of ``column``, or ``None`` (see :func:`best_point`).

    >>> a = Estimate("a", 0.4, (0.3, 0.5), "")
    >>> b = Estimate("b", 0.9, (0.6, 1.2), "")
    >>> c = Estimate("c", 0.7, (0.45, 0.9), "")
    >>> best_index(Column("x", "lower", (a, b))), best_index(Column("x", "higher", (a, b)))
    (0, 1)
    >>> best_index(Column("x", "lower", (a, b, c)))  # c's interval reaches 0.45 < 0.5
    """
    return best_point([Point(e.value, *e.interval)
                       if e.value is not None and e.interval is not None else None
                       for e in column.cells], column.better)


def leaderboard(systems: Sequence[str], columns: Sequence[Column]) -> Table:
    """A row per system: its name, then each column's value and coverage; the best cell
    of a column (:func:`best_index`) carries :data:`BEST_MARK` and the tone
    :data:`BEST_TONE`."""
    for column in columns:
        if len(column.cells) != len(systems):
            raise ValueError(f"column {column.title!r}: {len(column.cells)} cells for "
                             f"{len(systems)} systems")
    marks = [best_index(column) for column in columns]
    header = ["system"]
    for column in columns:
        header += [column.title, "coverage"]
    rows, tones = [], {}
    for row, name in enumerate(systems):
        cells = [name]
        for column, mark in zip(columns, marks, strict=True):
            estimate = column.cells[row]
            text = estimate.text + (BEST_MARK if mark == row else "")
            if mark == row:
                tones[text] = BEST_TONE
            cells += [text, estimate.coverage]
        rows.append(cells)
    return Table.of(header, rows, align=label_then_numbers(1, len(header) - 1), tones=tones)


def comparison_pairs(names: Sequence[str], baseline: str | None
                     ) -> list[tuple[int, int]]:
    """Which systems a page compares, as index pairs: each against ``baseline``, else
    every pair (both report pages ask this one function).

    >>> comparison_pairs(["a", "b", "c"], None), comparison_pairs(["a", "b", "c"], "b")
    ([(0, 1), (0, 2), (1, 2)], [(1, 0), (1, 2)])
    """
    if baseline is not None:
        base = list(names).index(baseline)
        return [(base, other) for other in range(len(names)) if other != base]
    return [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
