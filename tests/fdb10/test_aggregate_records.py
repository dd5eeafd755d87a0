"""The records of unified.json, field by field: shares, pooled ratios, latency quantiles.

Each metric result's ``record()`` is what unified.json holds; users read and compare it
between runs, so each record is checked whole, including its empty and undefined cases.
"""

from __future__ import annotations

from typing import Any

import pytest

from speecheval.core.stats import bootstrap_quantile, bootstrap_ratio
from speecheval.fdb.common.aggregate import LatencyQuantiles, PooledRatio, ShareMetric


def share(count: int, n: int, **kwargs: Any) -> dict[str, Any]:
    return ShareMetric.of(count, n, **kwargs).report_dict()


def pooled_ratio(numerators: list[float], denominators: list[float], **kwargs: Any
                 ) -> dict[str, Any]:
    return PooledRatio.of(numerators, denominators, **kwargs).report_dict()


def latency_quantiles(latencies_us: list[int | None], **kwargs: Any) -> dict[str, Any]:
    return LatencyQuantiles.of(latencies_us, **kwargs).report_dict()


def test_share_record() -> None:
    # 3 of 10 eligible, 12 selected of which 2 unknown: bounds [3/12, 5/12]; Wilson
    # interval of 3 in 10 is [0.107791, 0.603222] (docs/statistics.md)
    record = share(3, 10, selected=12, unknown=2, better="lower")
    assert record == {"kind": "share", "better": "lower", "count": 3, "n": 10, "value": 0.3,
                      "interval": [pytest.approx(0.107791, abs=1e-6),
                                   pytest.approx(0.603222, abs=1e-6)],
                      "selected_bounds": [0.25, 5 / 12]}
    assert share(0, 0, selected=0, unknown=0, better="higher") == {
        "kind": "share", "better": "higher", "count": 0, "n": 0, "value": None,
        "interval": None, "selected_bounds": None}


def test_pooled_ratio_record() -> None:
    # per-sample 1/2 and 2/2: pooled 3/4; interval from the documented bootstrap
    interval = bootstrap_ratio([1.0, 2.0], [2.0, 2.0])
    assert interval is not None
    assert pooled_ratio([1.0, 2.0], [2.0, 2.0], better="lower") == {
        "kind": "pooled_ratio", "better": "lower", "numerator": 3.0, "denominator": 4.0,
        "n_samples": 2, "value": 0.75,
        "interval": {"method": "percentile_bootstrap", "low": interval.low,
                     "high": interval.high, "low_reached": True, "high_reached": True,
                     "resamples": 2000, "resamples_used": 2000}}


def test_pooled_ratio_without_samples_or_without_denominator() -> None:
    assert pooled_ratio([], [], better="lower") == {
        "kind": "pooled_ratio", "better": "lower", "numerator": 0.0, "denominator": 0.0,
        "n_samples": 0, "value": None, "interval": None}
    # two samples with no pause time at all: no ratio, and no resample has one either
    assert pooled_ratio([0.0, 0.0], [0.0, 0.0], better="lower") == {
        "kind": "pooled_ratio", "better": "lower", "numerator": 0.0, "denominator": 0.0,
        "n_samples": 2, "value": None, "interval": None}


def test_latency_quantiles_record() -> None:
    # latencies 1 s, 3 s and one sample that never responded (+inf): the median is the
    # ceil(1.5) = 2nd smallest, 3.0; the p90 the ceil(2.7) = 3rd, +inf: not reached
    interval = bootstrap_quantile([1.0, 3.0, float("inf")], 0.5)
    assert interval is not None and interval.low is not None and interval.high is None
    assert latency_quantiles([1_000_000, None, 3_000_000]) == {
        "kind": "latency_quantiles", "better": "lower", "n": 3, "observed": 2,
        "median": {"value": 3.0, "reached": True,
                   "interval": {"method": "percentile_bootstrap", "low": interval.low,
                                "high": None, "low_reached": True, "high_reached": False,
                                "resamples": 2000, "resamples_used": 2000}},
        "p90": {"value": None, "reached": False}}


def test_latency_quantiles_of_no_samples() -> None:
    assert latency_quantiles([], better="higher") == {
        "kind": "latency_quantiles", "better": "higher", "n": 0, "observed": 0,
        "median": {"value": None, "reached": None, "interval": None},
        "p90": {"value": None, "reached": None}}
