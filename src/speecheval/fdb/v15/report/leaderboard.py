"""The v1.5 leaderboard: per scenario, the behaviour shares and the median stop and
response latency of every system, each with its interval and coverage.

Which way is better follows what the paper asks of a system in each scenario: after a
user interruption it should stop soon and respond (C_RESPOND higher, both latencies
lower); after a backchannel, a remark to someone else or background speech it should
carry on (C_RESUME higher), and there a quick stop is not a virtue, so those latencies
get no mark. The mark itself (best value, interval apart from every other system's) is
:mod:`speecheval.report.leaderboard_table`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ....report.leaderboard_table import Better, Column, Estimate, leaderboard
from ....report.table import Table
from ..judge.behavior import LABELS
from .estimates import median_estimate, share_estimate

if TYPE_CHECKING:
    from .scored_system import ScoredSystem

WANTED_LABEL = {"user_interruption": "C_RESPOND"}
"""The label the paper wants in each scenario; every other scenario wants C_RESUME."""
LATENCY_RANKED = frozenset({"user_interruption"})
"""Scenarios where a lower stop and response latency is better."""
ABSENT = Estimate("-", None, None, "-")


def scenarios_present(systems: Sequence[ScoredSystem], order: Sequence[str]) -> list[str]:
    """The scenarios any system has, in ``order`` (the paper's)."""
    return [s for s in order if any(s in system.summary for system in systems)]


def _share_columns(systems: Sequence[ScoredSystem], scenario: str) -> list[Column]:
    if all(s.behaviour is None for s in systems):
        return []
    wanted = WANTED_LABEL.get(scenario, "C_RESUME")
    columns = []
    for label in LABELS:
        cells = []
        for system in systems:
            result = ((system.behaviour or {}).get("scenarios") or {}).get(scenario)
            if result is None:
                cells.append(ABSENT)
                continue
            labelled = f"{result['trials'] - result['unlabelled']}/{result['trials']}"
            cells.append(share_estimate(result["shares"][label], labelled))
        better: Better = "higher" if label == wanted else "none"
        columns.append(Column(f"{scenario} {label}", better, tuple(cells)))
    return columns


def _latency_columns(systems: Sequence[ScoredSystem], scenario: str) -> list[Column]:
    columns = []
    for key, what in (("stop_latency", "median stop"), ("response_latency",
                                                        "median response")):
        cells = []
        for system in systems:
            summary = system.summary.get(scenario)
            cells.append(ABSENT if summary is None
                         else median_estimate(summary[key], summary["trials"]))
        better: Better = "lower" if scenario in LATENCY_RANKED else "none"
        columns.append(Column(f"{scenario} {what}", better, tuple(cells)))
    return columns


def leaderboard_table(systems: Sequence[ScoredSystem], order: Sequence[str]) -> Table:
    """One row per system; per scenario the four label shares and the two medians."""
    columns = []
    for scenario in scenarios_present(systems, order):
        columns += _share_columns(systems, scenario) + _latency_columns(systems, scenario)
    return leaderboard([s.name for s in systems], columns)
