"""Aggregation of per-sample rates (spec: 归一化与指标, 场景矩阵).

Inside a scenario every rate is reported two ways: the **sample macro** (each sample's
rate, then the mean, every sample weighs the same) and the **corpus micro** (numerators
and denominators summed over samples, then one division: S + D + I over reference
tokens for WER/CER/MER). Across scenarios only the **scenario macro** is used (the mean
of scenario macros), so one long podcast cannot drown the other scenarios. A
**duration-weighted** mean (each sample's rate weighted by its audio seconds) is a
separate column and never replaces the macro.

Repeated runs: each repeat index is aggregated on its own; the reported value is the
mean over repeats with the sample standard deviation (``ddof=1``; ``None`` for a single
repeat) and the failures. A sample with a zero denominator (an empty reference) has no
rate: it is left out of the macro and counted as ``undefined_samples``.

The 95% intervals are percentile bootstraps over samples
(:func:`speecheval.core.stats.bootstrap_ratio`), each sample first collapsed over its
repeats: the macro interval resamples per-sample rates, the micro interval resamples
(numerator, denominator) pairs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.stats import bootstrap_ratio


@dataclass(frozen=True)
class SampleValue:
    """One run of one sample: ``numerator / denominator`` is its rate (for WER: errors over
    reference tokens); ``failed`` runs are already scored as failures by the caller."""

    sample_id: str
    repeat: int
    duration_s: float
    numerator: float
    denominator: float
    failed: bool = False

    def __post_init__(self) -> None:
        for name in ("duration_s", "numerator", "denominator"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be finite and non-negative, got {value!r}")

    @property
    def rate(self) -> float | None:
        """numerator / denominator, ``None`` when the denominator is 0."""
        return self.numerator / self.denominator if self.denominator > 0 else None


@dataclass(frozen=True)
class RepeatValue:
    """Macro, micro and duration-weighted values of one repeat index."""

    repeat: int
    samples: int
    undefined_samples: int
    failed_runs: int
    macro: float | None
    micro: float | None
    duration_weighted: float | None
    numerator: float
    denominator: float


@dataclass(frozen=True)
class RateSummary:
    """A scenario's rate over its samples and repeats (see the module docstring)."""

    samples: int
    runs: int
    failed_runs: int
    undefined_samples: int
    macro: float | None
    micro: float | None
    duration_weighted: float | None
    macro_std: float | None
    micro_std: float | None
    macro_ci95: tuple[float | None, float | None] | None
    micro_ci95: tuple[float | None, float | None] | None
    per_repeat: tuple[RepeatValue, ...]

    def report_dict(self) -> dict[str, Any]:
        """JSON-ready dict (fractions)."""
        return {
            "samples": self.samples, "runs": self.runs, "failed_runs": self.failed_runs,
            "undefined_samples": self.undefined_samples,
            "macro": self.macro, "micro": self.micro,
            "duration_weighted": self.duration_weighted,
            "repeat_std": {"macro": self.macro_std, "micro": self.micro_std},
            "macro_ci95": None if self.macro_ci95 is None else list(self.macro_ci95),
            "micro_ci95": None if self.micro_ci95 is None else list(self.micro_ci95),
            "per_repeat": [{"repeat": r.repeat, "samples": r.samples,
                            "undefined_samples": r.undefined_samples,
                            "failed_runs": r.failed_runs, "macro": r.macro, "micro": r.micro,
                            "duration_weighted": r.duration_weighted,
                            "numerator": r.numerator, "denominator": r.denominator}
                           for r in self.per_repeat],
        }


def _mean(values: Iterable[float | None]) -> float | None:
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def _std(values: Iterable[float | None]) -> float | None:
    defined = [v for v in values if v is not None]
    return float(np.std(defined, ddof=1)) if len(defined) > 1 else None


def repeat_value(repeat: int, values: Sequence[SampleValue]) -> RepeatValue:
    """Macro, micro and duration-weighted values of the runs of one repeat.

    Hand check: rates 1/4 (2 s), 3/6 (6 s) and 0/0 (undefined). Macro (0.25 + 0.5) / 2 =
    0.375; micro 4 / 10 = 0.4; duration-weighted (0.25 * 2 + 0.5 * 6) / 8 = 0.4375.

    >>> r = repeat_value(1, [SampleValue("a", 1, 2.0, 1, 4), SampleValue("b", 1, 6.0, 3, 6),
    ...                      SampleValue("c", 1, 1.0, 0, 0)])
    >>> r.macro, r.micro, r.duration_weighted, r.undefined_samples
    (0.375, 0.4, 0.4375, 1)
    """
    defined = [v for v in values if v.rate is not None]
    numerator = sum(v.numerator for v in values)
    denominator = sum(v.denominator for v in values)
    weight = sum(v.duration_s for v in defined)
    return RepeatValue(
        repeat=repeat, samples=len(values), undefined_samples=len(values) - len(defined),
        failed_runs=sum(v.failed for v in values),
        macro=_mean(v.rate for v in defined),
        micro=numerator / denominator if denominator > 0 else None,
        duration_weighted=(sum(v.rate * v.duration_s for v in defined if v.rate is not None)
                           / weight if weight > 0 else None),
        numerator=numerator, denominator=denominator,
    )


def summarise(values: Sequence[SampleValue]) -> RateSummary:
    """Aggregate the runs of one scenario; ``values`` must not repeat a (sample, repeat)."""
    keys = [(v.sample_id, v.repeat) for v in values]
    if len(set(keys)) != len(keys):
        raise ValueError("a (sample, repeat) pair appears twice")
    repeats = sorted({v.repeat for v in values})
    per_repeat = tuple(repeat_value(r, [v for v in values if v.repeat == r]) for r in repeats)
    by_sample: dict[str, list[SampleValue]] = {}
    for v in values:
        by_sample.setdefault(v.sample_id, []).append(v)
    sample_rates = [_mean(v.rate for v in runs) for runs in by_sample.values()]
    defined_rates = [r for r in sample_rates if r is not None]
    macro_ci = (None if not defined_rates else
                _interval(bootstrap_ratio(defined_rates, [1.0] * len(defined_rates))))
    nums = [sum(v.numerator for v in runs) for runs in by_sample.values()]
    dens = [sum(v.denominator for v in runs) for runs in by_sample.values()]
    micro_ci = None if sum(dens) == 0 else _interval(bootstrap_ratio(nums, dens))
    return RateSummary(
        samples=len(by_sample), runs=len(values), failed_runs=sum(v.failed for v in values),
        undefined_samples=sum(r is None for r in sample_rates),
        macro=_mean(r.macro for r in per_repeat), micro=_mean(r.micro for r in per_repeat),
        duration_weighted=_mean(r.duration_weighted for r in per_repeat),
        macro_std=_std(r.macro for r in per_repeat), micro_std=_std(r.micro for r in per_repeat),
        macro_ci95=macro_ci, micro_ci95=micro_ci, per_repeat=per_repeat,
    )


def _interval(result: Any) -> tuple[float | None, float | None] | None:
    return None if result is None else (result.low, result.high)


@dataclass(frozen=True)
class CrossScenario:
    """The cross-scenario value: the mean of scenario macros, and the duration-weighted
    mean over all samples as a separate column."""

    scenarios: tuple[str, ...]
    scenario_macro: float | None
    duration_weighted: float | None

    def report_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"scenarios": list(self.scenarios), "scenario_macro": self.scenario_macro,
                "duration_weighted": self.duration_weighted}


def cross_scenario(per_scenario: Mapping[str, Sequence[SampleValue]]) -> CrossScenario:
    """Scenario macro across scenarios (never a pooled micro).

    Hand check: scenario x has rates 0.1 and 0.3 (macro 0.2, 1 s each), scenario y one
    rate 0.5 over 8 s. Scenario macro (0.2 + 0.5) / 2 = 0.35; duration-weighted (0.1 +
    0.3 + 4.0) / 10 = 0.44.

    >>> c = cross_scenario({"x": [SampleValue("a", 1, 1.0, 1, 10), SampleValue("b", 1, 1.0, 3, 10)],
    ...                     "y": [SampleValue("c", 1, 8.0, 5, 10)]})
    >>> round(c.scenario_macro, 9), round(c.duration_weighted, 9)
    (0.35, 0.44)
    """
    names = tuple(sorted(per_scenario))
    macros = [summarise(per_scenario[name]).macro for name in names]
    everything = [v for name in names for v in per_scenario[name]]
    repeats = sorted({v.repeat for v in everything})
    weighted = _mean(repeat_value(r, [v for v in everything if v.repeat == r]).duration_weighted
                     for r in repeats)
    return CrossScenario(names, _mean(macros), weighted)
