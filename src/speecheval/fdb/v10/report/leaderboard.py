"""The page's first table: one row per system, one column per headline metric.

A reader comparing systems wants the answer first, so every subset contributes its
headline numbers (the pause subsets their intrusion rate, turn-taking its early starts,
2-second response rate and median latency, interruption how often it was exercised,
how often the system was still speaking at the end and its median latency, backchannel
the official evaluator's numbers). Each cell is read from the subset's record in
``unified.json`` (the reference column for backchannel), never recomputed, and shows the
value, its 95% interval and the subset's coverage. A column's best value is marked only
where its interval overlaps no other system's, so a mark is never a coin toss; a
quantile bound the data never reached counts as unbounded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ....report.leaderboard_table import Point, best_point
from ....report.numbers import fixed
from ....report.table import Align, Table
from ...common.tree import BACKCHANNEL, PAUSE_HANDLING, SMOOTH_TURN_TAKING, USER_INTERRUPTION
from ..reference.column import ReferenceColumn
from .curves import RIGHT

HEADLINES: dict[str, tuple[str, ...]] = {
    PAUSE_HANDLING: ("pause_intrusion_rate",),
    SMOOTH_TURN_TAKING: ("early_start_rate", "response_rate_2s", "response_latency_s"),
    USER_INTERRUPTION: ("exercised_rate", "speaking_at_end_rate", "response_latency_s"),
}
"""The unified metrics each task shows in the leaderboard, in column order."""

BEST = " (best)"
"""Appended to the cell of a column's best value, which is also coloured."""


STD = "_std"
"""The suffix of the spread the official evaluator prints beside a mean (shown with it)."""


@dataclass(frozen=True)
class Entry:
    """What the leaderboard needs of one system: its name, its ``unified.json`` summary
    and its official reference column (None without one)."""

    name: str
    summary: Mapping[str, Any]
    reference: ReferenceColumn | None


def _bound(value: float | None, reached: bool | None) -> float:
    return math.inf if reached is False or value is None else float(value)


def metric_point(metric: Mapping[str, Any]) -> Point | None:
    """The value and interval of a share or a latency median, or None without both.

    >>> metric_point({"kind": "share", "value": 0.5, "interval": [0.2, 0.8]})
    Point(value=0.5, low=0.2, high=0.8)
    >>> metric_point({"kind": "latency_quantiles", "median": {"value": 1.7, "reached": True,
    ...     "interval": {"low": 0.8, "low_reached": True, "high": None,
    ...                  "high_reached": False}}})
    Point(value=1.7, low=0.8, high=inf)
    """
    if metric["kind"] == "share":
        if metric["value"] is None or metric["interval"] is None:
            return None
        low, high = metric["interval"]
        return Point(float(metric["value"]), float(low), float(high))
    median = metric["median"]
    interval = median["interval"]
    if median["value"] is None and median["reached"] is not False or interval is None:
        return None
    return Point(_bound(median["value"], median["reached"]),
                 _bound(interval["low"], interval["low_reached"]),
                 _bound(interval["high"], interval["high_reached"]))


def bound_text(value: float | None, reached: bool | None) -> str:
    """A quantile or bound as written on the page: ``not reached`` when the data never
    got there."""
    return "not reached" if reached is False else fixed(value)


def pair_text(pair: Sequence[float | None] | None) -> str:
    """An interval of a share, ``[low, high]``."""
    return "n/a" if pair is None else f"[{fixed(pair[0])}, {fixed(pair[1])}]"


def metric_text(metric: Mapping[str, Any], coverage: float | None) -> str:
    """One leaderboard cell: value, 95% interval and the subset's coverage.

    >>> metric_text({"kind": "share", "value": 0.166666667,
    ...              "interval": [0.046965142, 0.448030862]}, 0.923076923)
    '0.167 [0.047, 0.448] cov 0.923'
    """
    if metric["kind"] == "share":
        value, shown = fixed(metric["value"]), pair_text(metric["interval"])
    else:
        median = metric["median"]
        value = bound_text(median["value"], median["reached"]) + " s"
        bounds = median["interval"]
        shown = "n/a" if bounds is None else (
            f"[{bound_text(bounds['low'], bounds['low_reached'])}, "
            f"{bound_text(bounds['high'], bounds['high_reached'])}]")
    return f"{value} {shown} cov {fixed(coverage)}"


def _subsets(entries: Sequence[Entry]) -> list[tuple[str, str]]:
    """Every subset any system has, with its task, in the order the summaries list them."""
    seen: dict[str, str] = {}
    for entry in entries:
        for subset, record in entry.summary["subsets"].items():
            seen.setdefault(subset, record["task"])
    return list(seen.items())


def _official_keys(entries: Sequence[Entry], subset: str) -> list[str]:
    keys: set[str] = set()
    for entry in entries:
        if entry.reference is not None:
            keys |= set(entry.reference.subsets.get(subset, {}))
    return sorted(k for k in keys if not (k.endswith(STD) and k[:-len(STD)] in keys))


def _official_text(entry: Entry, subset: str, key: str) -> str:
    values = entry.reference.subsets.get(subset, {}) if entry.reference else {}
    value = values.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        record = entry.summary["subsets"].get(subset)
        coverage = None if record is None else record["coverage"]
        spread = values.get(key + STD)
        shown = fixed(value) if not isinstance(spread, int | float) else \
            f"{fixed(value)} \u00b1 {fixed(spread)}"
        return f"{shown} official cov {fixed(coverage)}"
    return "n/a"


def leaderboard(entries: Sequence[Entry]) -> Table:
    """The table: a row per system, a column per headline metric (``subset: metric``)."""
    columns: list[list[str]] = []
    header = ["system"]
    tones: dict[str, str] = {}
    for subset, task in _subsets(entries):
        if task == BACKCHANNEL:
            for key in _official_keys(entries, subset):
                header.append(f"{subset}: {key} (official)")
                columns.append([_official_text(e, subset, key) for e in entries])
            continue
        for name in HEADLINES.get(task, ()):
            records = [e.summary["subsets"].get(subset) for e in entries]
            metrics = [None if r is None or not r.get("metrics") else r["metrics"].get(name)
                       for r in records]
            cells = ["n/a" if m is None or r is None else metric_text(m, r["coverage"])
                     for m, r in zip(metrics, records, strict=True)]
            better = next((m["better"] for m in metrics if m is not None), "")
            best = best_point([None if m is None else metric_point(m) for m in metrics],
                              better)
            if best is not None:
                cells[best] += BEST
                tones[cells[best]] = "pass"
            label = "median response_latency_s" if name == "response_latency_s" else name
            header.append(f"{subset}: {label}")
            columns.append(cells)
    rows = [[entry.name, *(column[i] for column in columns)]
            for i, entry in enumerate(entries)]
    align: list[Align] = ["left", *(RIGHT,) * len(columns)]
    return Table.of(header, rows, align=align, tones=tones)
