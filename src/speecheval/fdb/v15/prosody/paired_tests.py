"""Paired tests of the prosody measures: pre -> post and clean -> post (paper Tables 4, 5).

For each measure and each comparison, over the trials that have both values: the mean of
each side, the mean difference (after minus before), the paired t-test's two-sided p-value
(``scipy.stats.ttest_rel``), the effect size d_z = mean difference / SD of the differences
(ddof 1), and n. A trial whose value is missing on either side is dropped and listed with
the reason its measurement gave, never silently.

Outliers are trimmed as the official ``significance_test.py`` trims them by default
(``--outlier_rule mad --outlier_on diff``, k 3.5): over the complete pairs, a pair whose
difference lies outside median +- 3.5 x 1.4826 x MAD of the differences is dropped (none
when the MAD is 0), and listed with its difference and the bounds; ``outliers="none"``
keeps every pair. p-values are uncorrected unless ``correction="holm"`` is asked for,
which adjusts over every test of the table (all measures, both comparisons) and says so
(the script computes Holm's values but neither prints nor uses them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

COMPARISONS: tuple[tuple[str, str], ...] = (("pre", "post"), ("clean", "post"))
"""(before, after) part names; the difference is after minus before."""

CORRECTIONS = ("none", "holm")
OUTLIER_RULES = ("mad", "none")
MAD_K = 3.5
MAD_SCALE = 1.4826
"""The official defaults: k 3.5, and the factor that makes the MAD estimate a normal SD."""


@dataclass(frozen=True)
class Measured:
    """One measure of one part of one trial: a value, or why there is none."""

    value: float | None
    reason: str | None = None

    def __post_init__(self) -> None:
        if (self.value is None) == (self.reason is None):
            raise ValueError("a measure has either a value or a reason, not both or neither")

    def report_value(self) -> float | dict[str, str]:
        return self.value if self.value is not None else {"missing": str(self.reason)}


@dataclass(frozen=True)
class PairedTest:
    """One measure's paired t-test for one comparison."""

    measure: str
    before: str
    after: str
    n: int
    mean_before: float | None
    mean_after: float | None
    mean_difference: float | None
    t: float | None
    p: float | None
    d_z: float | None
    dropped: tuple[tuple[str, str], ...]
    note: str | None = None
    p_corrected: float | None = None

    def report_dict(self) -> dict[str, Any]:
        return {"measure": self.measure, "comparison": f"{self.before}->{self.after}",
                "n": self.n, "mean_before": self.mean_before, "mean_after": self.mean_after,
                "mean_difference": self.mean_difference, "t": self.t, "p": self.p,
                "p_corrected": self.p_corrected, "d_z": self.d_z, "note": self.note,
                "dropped": [{"sample_id": s, "reason": r} for s, r in self.dropped]}


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def mad_outliers(differences: Sequence[float]) -> tuple[list[bool], tuple[float, float] | None]:
    """Which differences the official MAD rule drops, and its bounds (None: MAD 0, none).

    Differences 1, 2, 3, 4, 100: median 3, absolute deviations 2, 1, 0, 1, 97, MAD 1,
    bounds 3 +- 3.5 x 1.4826 = [-2.1891, 8.1891]: only 100 is out.

    >>> out, (low, high) = mad_outliers([1.0, 2.0, 3.0, 4.0, 100.0])
    >>> out, round(low, 4), round(high, 4)
    ([False, False, False, False, True], -2.1891, 8.1891)
    """
    import numpy as np

    values = np.asarray(differences, dtype=np.float64)
    median = float(np.median(values))
    scale = MAD_SCALE * float(np.median(np.abs(values - median)))
    if scale == 0.0:
        return [False] * len(differences), None
    low, high = median - MAD_K * scale, median + MAD_K * scale
    return [not low <= d <= high for d in differences], (low, high)


def paired_test(measure: str, before: str, after: str,
                trials: Mapping[str, Mapping[str, Mapping[str, Measured]]],
                outliers: str = "mad") -> PairedTest:
    """The test of ``measure`` from part ``before`` to part ``after`` over ``trials``.

    ``trials`` maps a sample id to its parts (``pre``, ``post``, ``clean``), each a map of
    measure name to :class:`Measured`; ``outliers`` is ``mad`` (the official default) or
    ``none``.
    """
    from scipy import stats

    pairs: list[tuple[float, float]] = []
    ids: list[str] = []
    dropped: list[tuple[str, str]] = []
    for sample_id, parts in trials.items():
        first = parts[before][measure]
        second = parts[after][measure]
        if first.value is None or second.value is None:
            reasons = [f"{name}: {m.reason}" for name, m in ((before, first), (after, second))
                       if m.value is None]
            dropped.append((sample_id, "; ".join(reasons)))
        else:
            pairs.append((first.value, second.value))
            ids.append(sample_id)
    if outliers == "mad" and pairs:
        out, bounds = mad_outliers([b - a for a, b in pairs])
        if bounds is not None:
            for sample_id, (a, b), is_out in zip(ids, pairs, out, strict=True):
                if is_out:
                    dropped.append((sample_id, f"outlier: difference {b - a:.6g} outside "
                                               f"median +- {MAD_K} x {MAD_SCALE} x MAD "
                                               f"[{bounds[0]:.6g}, {bounds[1]:.6g}]"))
            pairs = [pair for pair, is_out in zip(pairs, out, strict=True) if not is_out]
    n = len(pairs)
    empty = PairedTest(measure, before, after, n, None, None, None, None, None, None,
                       tuple(dropped))
    if n == 0:
        return replace(empty, note="no complete pair")
    xs = [a for a, _ in pairs]
    ys = [b for _, b in pairs]
    differences = [b - a for a, b in pairs]
    mean_difference = math.fsum(differences) / n
    measured = replace(empty, mean_before=math.fsum(xs) / n, mean_after=math.fsum(ys) / n,
                       mean_difference=mean_difference)
    if n < 2:
        return replace(measured, note="one complete pair: no test")
    sd = math.sqrt(math.fsum((d - mean_difference) ** 2 for d in differences) / (n - 1))
    if sd == 0.0:
        return replace(measured, note="every difference is the same: no test")
    result = stats.ttest_rel(ys, xs)
    return replace(measured, t=_finite(float(result.statistic)),
                   p=_finite(float(result.pvalue)), d_z=mean_difference / sd)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values over the tests that have one (``None`` stays).

    Sorted ascending, the i-th of m (1-based) becomes min(1, max over j <= i of
    (m - j + 1) p_(j)).

    >>> holm([0.01, 0.04, None, 0.03])
    [0.03, 0.06, None, 0.06]
    """
    present = sorted((p, index) for index, p in enumerate(p_values) if p is not None)
    m = len(present)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(present):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[index] = running
    return adjusted


def paired_tests(measures: Sequence[str],
                 trials: Mapping[str, Mapping[str, Mapping[str, Measured]]],
                 correction: str = "none", outliers: str = "mad") -> list[PairedTest]:
    """Every measure under both comparisons, in the order measure by comparison."""
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, got {correction!r}")
    if outliers not in OUTLIER_RULES:
        raise ValueError(f"outliers must be one of {OUTLIER_RULES}, got {outliers!r}")
    tests = [paired_test(measure, before, after, trials, outliers)
             for measure in measures for before, after in COMPARISONS]
    if correction == "none":
        return tests
    adjusted = holm([test.p for test in tests])
    return [replace(test, p_corrected=p) for test, p in zip(tests, adjusted, strict=True)]


def correction_statement(correction: str, tests: Sequence[PairedTest]) -> str:
    """The sentence the report prints under the table."""
    count = sum(test.p is not None for test in tests)
    if correction == "holm":
        return (f"p-values Holm-corrected over the {count} tests of this table "
                "(p_corrected); p is the uncorrected value.")
    return (f"p-values are not corrected for the {count} tests of this table "
            "(run with --correction holm to correct them).")


def outlier_statement(outliers: str) -> str:
    """What was trimmed, for ``prosody.json`` and the console."""
    if outliers == "mad":
        return (f"outliers trimmed as the official default: pairs whose difference lies "
                f"outside median +- {MAD_K} x {MAD_SCALE} x MAD of the differences are "
                "dropped and listed (--outliers none keeps them)")
    return "no outlier trimming (--outliers none)"
