"""The paired comparison of two systems on one subset, as the spec prescribes it.

The intervals of ``unified.json`` cover dataset sampling only, so two systems are
compared sample by sample: their ``unified-samples.jsonl`` rows are paired by
``sample_id`` over the samples eligible in both, and for interruption over the samples
exercised in both. Pairing does not remove selection bias, so the comparison also says
how many samples it leaves out and why: selected in one tree only, eligible in one
system only or in neither, and for interruption, of the samples eligible in both, how
many were exercised in both, in one system only, or in neither.

On the paired samples it counts each combination of outcomes (first system's against
the second's) and computes both systems' latency curves (:mod:`.latency_curve`) over the
same samples, which is what makes their response rates and quantiles comparable.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ....core.timebase import to_us
from ...common.tree import USER_INTERRUPTION
from .latency_curve import NOT_EXERCISED, REFERENCE_TIME, LatencyCurve, latency_curve
from .outcomes import OUTCOMES, outcome


@dataclass(frozen=True)
class Split:
    """How many samples are in both, in the first only, in the second only, in neither."""

    both: int
    first_only: int
    second_only: int
    neither: int


@dataclass(frozen=True)
class PairedSubset:
    """Two systems' rows of one subset, paired by ``sample_id``.

    ``selected``: samples selected in both trees, then in one tree only (first, second);
    ``eligible``: of the samples selected in both; ``exercised`` (interruption only): of
    the samples eligible in both. ``outcomes`` counts (first outcome, second outcome)
    over the paired samples; ``curves`` are both systems' latency curves over them and
    ``sooner`` counts, of the paired samples where both responded, those the first
    answered sooner, the second sooner, and both at the same microsecond (turn-taking and
    interruption only).
    """

    subset: str
    task: str
    selected: tuple[int, int, int]
    eligible: Split
    exercised: Split | None
    paired: int
    outcomes: tuple[tuple[str, str, int], ...]
    curves: tuple[LatencyCurve, LatencyCurve] | None
    sooner: tuple[int, int, int] | None


def _split(ids: Iterable[str], first: dict[str, bool], second: dict[str, bool]) -> Split:
    both = first_only = second_only = neither = 0
    for sample_id in ids:
        a, b = first[sample_id], second[sample_id]
        both += a and b
        first_only += a and not b
        second_only += b and not a
        neither += not a and not b
    return Split(both, first_only, second_only, neither)


def _exercised(row: dict[str, Any]) -> bool:
    return bool(row["outcome"] != NOT_EXERCISED)


def pair_subset(subset: str, task: str, first: Iterable[dict[str, Any]],
                second: Iterable[dict[str, Any]]) -> PairedSubset:
    """Pair two systems' rows of ``subset``, a subset of ``task`` (rows of other subsets
    are ignored)."""
    a = {row["sample_id"]: row for row in first if row["subset"] == subset}
    b = {row["sample_id"]: row for row in second if row["subset"] == subset}
    tasks = {row["task"] for row in [*a.values(), *b.values()]}
    if not tasks <= {task}:
        raise ValueError(f"{subset}: rows of tasks {sorted(tasks)}, expected {task}")
    common = sorted(a.keys() & b.keys())
    eligible = _split(common, {i: a[i]["eligible"] for i in common},
                      {i: b[i]["eligible"] for i in common})
    both_eligible = [i for i in common if a[i]["eligible"] and b[i]["eligible"]]
    exercised = None
    paired = both_eligible
    if task == USER_INTERRUPTION:
        exercised = _split(both_eligible, {i: _exercised(a[i]) for i in both_eligible},
                           {i: _exercised(b[i]) for i in both_eligible})
        paired = [i for i in both_eligible if _exercised(a[i]) and _exercised(b[i])]
    names = [name for name, _ in OUTCOMES[task]]
    pairs = [(outcome(a[i]), outcome(b[i])) for i in paired]
    outcomes = tuple((x, y, pairs.count((x, y))) for x in names for y in names
                     if pairs.count((x, y)))
    curves = sooner = None
    if task in REFERENCE_TIME:
        curves = (latency_curve(a[i] for i in paired), latency_curve(b[i] for i in paired))
        sooner = _sooner([(a[i]["latency_s"], b[i]["latency_s"]) for i in paired])
    return PairedSubset(subset, task, (len(common), len(a) - len(common),
                                       len(b) - len(common)),
                        eligible, exercised, len(paired), outcomes, curves, sooner)


def _sooner(latencies: Iterable[tuple[float | None, float | None]]) -> tuple[int, int, int]:
    """(first sooner, second sooner, equal) over the pairs where both responded,
    compared in whole microseconds.

    >>> _sooner([(0.5, 1.0), (1.0, 0.5), (0.3, 0.1 + 0.2), (None, 0.2)])
    (1, 1, 1)
    """
    first = second = equal = 0
    for x, y in latencies:
        if x is None or y is None:
            continue
        difference = to_us(x) - to_us(y)
        first += difference < 0
        second += difference > 0
        equal += difference == 0
    return first, second, equal


def sign_test_p(first: int, second: int) -> float | None:
    """Two-sided exact sign test of ``first`` against ``second`` wins (ties left out):
    how surprising the split is if either system is as likely to answer sooner. None
    when there is no win to test.

    Both 3-0 and 0-3 have probability 1/8 under a fair coin, and nothing is rarer, so
    p = 2/8:

    >>> sign_test_p(3, 0), sign_test_p(0, 0)
    (0.25, None)
    """
    if first + second == 0:
        return None
    from scipy.stats import binomtest

    return float(binomtest(first, first + second, 0.5).pvalue)
