"""The response-latency curve F(t) of a subset, from its ``unified-samples.jsonl`` rows.

The spec defines one curve for turn-taking and interruption: F(t) is the share of the
denominator samples with a ``response`` latency of at most t, ``response_rate_ks`` is
F(k), and a quantile is Q(q) = inf{t : F(t) >= q}, the ceil(qN)-th smallest latency, not
reached when that rank falls on a sample without a response. The page draws the curve
and reads the rates and quantiles off it, so this module computes all three from the
same sorted latencies; it works on rows (not on scorer objects) so that it serves a
whole subset and the paired samples of two systems alike.

Times are compared in whole microseconds, as the scorer compares them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ....core.stats import quantile_rank
from ....core.timebase import from_us, to_us
from ...common.tree import SMOOTH_TURN_TAKING, USER_INTERRUPTION

REFERENCE_TIME = {SMOOTH_TURN_TAKING: "E", USER_INTERRUPTION: "R"}
"""The row key of the time a latency is measured from, for the tasks with a curve."""
RESPONSE = "response"
NOT_EXERCISED = "not_exercised"


@dataclass(frozen=True)
class LatencyCurve:
    """F(t) over ``n`` samples; ``latencies_us`` are the responses' latencies, sorted.

    ``min_observable_s`` is the shortest time from the reference to T over the rows the
    curve was made from: past it some sample's window has ended, so F is a lower bound.
    """

    n: int
    latencies_us: tuple[int, ...]
    min_observable_s: float | None

    @property
    def responded(self) -> int:
        return len(self.latencies_us)

    def share_within(self, seconds: float) -> float | None:
        """F(t): the share of the ``n`` samples that responded within ``seconds``
        (``None`` when there are no samples)."""
        if self.n == 0:
            return None
        return bisect_right(self.latencies_us, to_us(seconds)) / self.n

    def quantile(self, q: float) -> float | None:
        """Q(q) in seconds; ``None`` when not reached or when there are no samples."""
        if self.n == 0:
            return None
        rank = quantile_rank(q, self.n)
        return from_us(self.latencies_us[rank - 1]) if rank <= self.responded else None

    def steps(self) -> tuple[tuple[float, float], ...]:
        """(t, F(t)) at every distinct latency: where the curve steps up."""
        points: list[tuple[float, float]] = []
        for index, latency in enumerate(self.latencies_us):
            if index + 1 < self.responded and self.latencies_us[index + 1] == latency:
                continue
            points.append((from_us(latency), (index + 1) / self.n))
        return tuple(points)


def in_denominator(row: dict[str, Any]) -> bool:
    """Whether an eligible row counts in the curve: every turn-taking sample, and the
    exercised interruption samples (a not-exercised one has no outcome to time)."""
    return bool(row["task"] == SMOOTH_TURN_TAKING or row["outcome"] != NOT_EXERCISED)


def latency_curve(rows: Iterable[dict[str, Any]]) -> LatencyCurve:
    """The curve of the eligible rows given (one task: turn-taking or interruption).

    Ineligible rows are skipped; ``min_observable_s`` is over every eligible row, as
    ``unified.json`` reports it.
    """
    eligible = [row for row in rows if row["eligible"]]
    tasks = {row["task"] for row in eligible}
    if not tasks <= set(REFERENCE_TIME) or len(tasks) > 1:
        raise ValueError(f"a latency curve needs rows of one of {sorted(REFERENCE_TIME)}, "
                         f"got {sorted(tasks)}")
    counted = [row for row in eligible if in_denominator(row)]
    latencies = sorted(to_us(row["latency_s"]) for row in counted
                       if row["outcome"] == RESPONSE)
    return LatencyCurve(len(counted), tuple(latencies), _min_observable(eligible))


def _min_observable(rows: Sequence[dict[str, Any]]) -> float | None:
    if not rows:
        return None
    key = REFERENCE_TIME[rows[0]["task"]]
    return from_us(min(to_us(row["input_duration_s"]) - to_us(row[key]) for row in rows))
