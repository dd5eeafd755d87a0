"""The record of a latency summary whose median has no bootstrap interval."""

from __future__ import annotations

from speecheval.fdb.common.aggregate import LatencyQuantiles


def test_median_without_interval_is_recorded_as_null() -> None:
    # A summary built without an interval (the type allows it): the median is reported,
    # its interval is null rather than an error.
    summary = LatencyQuantiles("lower", 3, 3, 0.5, None, 0.9)
    assert summary.report_dict() == {
        "kind": "latency_quantiles", "better": "lower", "n": 3, "observed": 3,
        "median": {"value": 0.5, "reached": True, "interval": None},
        "p90": {"value": 0.9, "reached": True}}
