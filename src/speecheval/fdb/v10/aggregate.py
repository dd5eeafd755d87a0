"""Subset-level metric records: shares, pooled ratios and latency quantiles.

Every record is a plain dict ready for canonical JSON, so ``unified.json`` shows exactly
the numbers the console prints. Denominators never shrink silently: a share records its
count and n, and its ``selected_bounds`` complete every unknown outcome as no, then yes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.stats import (
    BootstrapInterval,
    bootstrap_quantile,
    bootstrap_ratio,
    rank_quantile,
    wilson_interval,
)
from .tree import ManifestSample

US = 1_000_000


def counts_record(selected: Sequence[ManifestSample], declared: int) -> dict[str, Any]:
    """Selected, eligible and ineligible counts, with every reason counted."""
    reasons: Counter[str] = Counter()
    for sample in selected:
        if not sample.eligible:
            reasons.update(set(sample.reasons))
    eligible = sum(1 for sample in selected if sample.eligible)
    return {
        "declared": declared,
        "selected": len(selected),
        "eligible": eligible,
        "ineligible": len(selected) - eligible,
        "ineligible_reasons": dict(sorted(reasons.items())),
    }


def share(count: int, n: int, *, selected: int, unknown: int, better: str) -> dict[str, Any]:
    """A share of samples with its Wilson interval and selected bounds.

    ``unknown`` samples (ineligible, and for interruption also not exercised) are taken
    as no and then as yes over all ``selected`` samples.

    >>> share(3, 8, selected=10, unknown=2, better="lower")["selected_bounds"]
    [0.3, 0.5]
    """
    interval = wilson_interval(count, n)
    return {
        "kind": "share",
        "better": better,
        "count": count,
        "n": n,
        "value": count / n if n else None,
        "interval": list(interval) if interval else None,
        "selected_bounds": ([count / selected, (count + unknown) / selected]
                            if selected else None),
    }


def _interval_record(interval: BootstrapInterval | None) -> dict[str, Any] | None:
    if interval is None:
        return None
    return {
        "method": "percentile_bootstrap",
        "low": interval.low,
        "high": interval.high,
        "low_reached": interval.low is not None,
        "high_reached": interval.high is not None,
        "resamples": interval.resamples,
        "resamples_used": interval.resamples_used,
    }


def pooled_ratio(numerators: Sequence[float], denominators: Sequence[float], *,
                 better: str) -> dict[str, Any]:
    """sum(numerators) / sum(denominators) over samples, with a sample bootstrap interval."""
    total_num = float(np.sum(numerators)) if numerators else 0.0
    total_den = float(np.sum(denominators)) if denominators else 0.0
    interval = bootstrap_ratio(numerators, denominators) if numerators else None
    if interval is not None and interval.resamples_used == 0:
        interval = None
    return {
        "kind": "pooled_ratio",
        "better": better,
        "numerator": total_num,
        "denominator": total_den,
        "n_samples": len(numerators),
        "value": total_num / total_den if total_den > 0 else None,
        "interval": _interval_record(interval),
    }


def latency_quantiles(latencies_us: Sequence[int | None], *, better: str = "lower"
                      ) -> dict[str, Any]:
    """Median (with bootstrap interval) and p90 of latencies; ``None`` never happened.

    Samples without a value are placed at +inf, so a quantile that lands on one is not
    reached (value null, ``reached`` false).
    """
    values = np.array([np.inf if v is None else v / US for v in latencies_us], dtype=np.float64)
    n = int(values.size)
    record: dict[str, Any] = {"kind": "latency_quantiles", "better": better, "n": n,
                              "observed": int(np.count_nonzero(np.isfinite(values)))}
    if n == 0:
        record["median"] = {"value": None, "reached": None, "interval": None}
        record["p90"] = {"value": None, "reached": None}
        return record
    median = rank_quantile(values, 0.5)
    p90 = rank_quantile(values, 0.9)
    record["median"] = {"value": median, "reached": median is not None,
                        "interval": _interval_record(bootstrap_quantile(values, 0.5))}
    record["p90"] = {"value": p90, "reached": p90 is not None}
    return record


def rate_within(latencies_us: Sequence[int | None], seconds: int) -> int:
    """How many latencies are at most ``seconds`` (compared in whole microseconds)."""
    limit = seconds * US
    return sum(1 for v in latencies_us if v is not None and v <= limit)
