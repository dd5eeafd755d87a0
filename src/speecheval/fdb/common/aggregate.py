"""Subset-level metric results: shares, pooled ratios and latency quantiles.

Each metric is a frozen, registered result (``core.results``) whose :meth:`record` is
the plain dict written to ``unified.json``, so the file shows exactly the numbers the
console prints. Denominators never shrink silently: a share records its count and n,
and its ``selected_bounds`` complete every unknown outcome as no, then yes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.results import Result
from ...core.share import Share
from ...core.stats import BootstrapInterval, bootstrap_quantile, bootstrap_ratio, rank_quantile
from .tree import ManifestSample

US = 1_000_000


@dataclass(frozen=True)
class SubsetCounts(Result, kind="fdb10.subset_counts"):
    """Declared, selected and eligible samples of a subset, with every reason counted."""

    declared: int
    selected: int
    eligible: int
    ineligible_reasons: dict[str, int]

    @classmethod
    def of(cls, selected: Sequence[ManifestSample], declared: int) -> SubsetCounts:
        reasons: Counter[str] = Counter()
        for sample in selected:
            if not sample.eligible:
                reasons.update(set(sample.reasons))
        eligible = sum(1 for sample in selected if sample.eligible)
        return cls(declared, len(selected), eligible, dict(sorted(reasons.items())))

    def report_dict(self) -> dict[str, Any]:
        return {"declared": self.declared, "selected": self.selected,
                "eligible": self.eligible, "ineligible": self.selected - self.eligible,
                "ineligible_reasons": dict(self.ineligible_reasons)}


@dataclass(frozen=True)
class ShareMetric(Result, kind="fdb10.share_metric"):
    """A share of samples with its Wilson interval and selected bounds.

    ``unknown`` samples (ineligible, and for interruption also not exercised) are taken
    as no and then as yes over all ``selected`` samples.

    >>> ShareMetric.of(3, 8, selected=10, unknown=2, better="lower").selected_bounds
    (0.3, 0.5)
    """

    share: Share
    better: str
    selected: int
    unknown: int

    @classmethod
    def of(cls, count: int, n: int, *, selected: int, unknown: int, better: str
           ) -> ShareMetric:
        return cls(Share.wilson(count, n), better, selected, unknown)

    @property
    def selected_bounds(self) -> tuple[float, float] | None:
        if not self.selected:
            return None
        count = self.share.count
        return count / self.selected, (count + self.unknown) / self.selected

    def report_dict(self) -> dict[str, Any]:
        interval, bounds = self.share.interval, self.selected_bounds
        return {
            "kind": "share",
            "better": self.better,
            "count": self.share.count,
            "n": self.share.n,
            "value": self.share.value,
            "interval": list(interval) if interval else None,
            "selected_bounds": list(bounds) if bounds else None,
        }


@dataclass(frozen=True)
class Bootstrap(Result, kind="fdb10.bootstrap_interval"):
    """A percentile bootstrap interval; an endpoint is ``None`` when it is not reached."""

    low: float | None
    high: float | None
    resamples: int
    resamples_used: int

    @classmethod
    def of(cls, interval: BootstrapInterval | None) -> Bootstrap | None:
        if interval is None:
            return None
        return cls(interval.low, interval.high, interval.resamples, interval.resamples_used)

    def report_dict(self) -> dict[str, Any]:
        return {"method": "percentile_bootstrap", "low": self.low, "high": self.high,
                "low_reached": self.low is not None, "high_reached": self.high is not None,
                "resamples": self.resamples, "resamples_used": self.resamples_used}


@dataclass(frozen=True)
class PooledRatio(Result, kind="fdb10.pooled_ratio"):
    """sum(numerators) / sum(denominators) over samples, with a sample bootstrap interval."""

    better: str
    numerator: float
    denominator: float
    n_samples: int
    interval: Bootstrap | None

    @classmethod
    def of(cls, numerators: Sequence[float], denominators: Sequence[float], *,
           better: str) -> PooledRatio:
        total_num = float(np.sum(numerators)) if numerators else 0.0
        total_den = float(np.sum(denominators)) if denominators else 0.0
        interval = bootstrap_ratio(numerators, denominators) if numerators else None
        if interval is not None and interval.resamples_used == 0:
            interval = None
        return cls(better, total_num, total_den, len(numerators), Bootstrap.of(interval))

    @property
    def value(self) -> float | None:
        return self.numerator / self.denominator if self.denominator > 0 else None

    def report_dict(self) -> dict[str, Any]:
        return {"kind": "pooled_ratio", "better": self.better, "numerator": self.numerator,
                "denominator": self.denominator, "n_samples": self.n_samples,
                "value": self.value,
                "interval": None if self.interval is None else self.interval.report_dict()}


@dataclass(frozen=True)
class LatencyQuantiles(Result, kind="fdb10.latency_quantiles"):
    """Median (with bootstrap interval) and p90 of latencies in seconds.

    Samples without a value are placed at +inf, so a quantile that lands on one is not
    reached (value null, ``reached`` false); with no samples nothing is reached or not.
    """

    better: str
    n: int
    observed: int
    median: float | None
    median_interval: Bootstrap | None
    p90: float | None

    @classmethod
    def of(cls, latencies_us: Sequence[int | None], *, better: str = "lower"
           ) -> LatencyQuantiles:
        values = np.array([np.inf if v is None else v / US for v in latencies_us],
                          dtype=np.float64)
        n = int(values.size)
        observed = int(np.count_nonzero(np.isfinite(values)))
        if n == 0:
            return cls(better, 0, observed, None, None, None)
        return cls(better, n, observed, rank_quantile(values, 0.5),
                   Bootstrap.of(bootstrap_quantile(values, 0.5)), rank_quantile(values, 0.9))

    def report_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {"kind": "latency_quantiles", "better": self.better,
                                  "n": self.n, "observed": self.observed}
        if self.n == 0:
            record["median"] = {"value": None, "reached": None, "interval": None}
            record["p90"] = {"value": None, "reached": None}
            return record
        record["median"] = {"value": self.median, "reached": self.median is not None,
                            "interval": (None if self.median_interval is None
                                         else self.median_interval.report_dict())}
        record["p90"] = {"value": self.p90, "reached": self.p90 is not None}
        return record


Metric = ShareMetric | PooledRatio | LatencyQuantiles


def rate_within(latencies_us: Sequence[int | None], seconds: int) -> int:
    """How many latencies are at most ``seconds`` (compared in whole microseconds)."""
    limit = seconds * US
    return sum(1 for v in latencies_us if v is not None and v <= limit)
