"""The response-latency curve F(t) from per-sample rows, against values worked by hand."""

from __future__ import annotations

from typing import Any

import pytest

from speecheval.fdb.v10.scoring.latency_curve import latency_curve

TT, UI = "smooth_turn_taking", "user_interruption"


def turn(outcome: str, latency: float | None = None, *, e: float = 2.0, t: float = 8.0,
         eligible: bool = True) -> dict[str, Any]:
    row: dict[str, Any] = {"task": TT, "eligible": eligible, "input_duration_s": t}
    if eligible:
        row |= {"outcome": outcome, "E": e, "latency_s": latency}
    return row


def interrupt(outcome: str, latency: float | None = None, *, r: float = 6.0,
              t: float = 14.0) -> dict[str, Any]:
    return {"task": UI, "eligible": True, "input_duration_s": t, "outcome": outcome,
            "R": r, "latency_s": latency}


def test_turn_taking_curve_rates_and_quantiles() -> None:
    rows = [turn("response", 0.4), turn("response", 1.0), turn("response", 1.0),
            turn("response", 2.5), turn("early_start"), turn("no_response"),
            turn("", eligible=False), turn("response", 0.9, e=4.0, t=8.5)]
    curve = latency_curve(rows)
    # 7 eligible samples (the ineligible one is left out), 5 responses: 0.4 0.9 1.0 1.0 2.5
    assert (curve.n, curve.responded) == (7, 5)
    assert curve.latencies_us == (400_000, 900_000, 1_000_000, 1_000_000, 2_500_000)
    # F(1) counts a latency of exactly 1 s: 4 of 7; F(2) 4/7; F(5) 5/7; F(0.39) 0
    assert curve.share_within(1) == pytest.approx(4 / 7)
    assert curve.share_within(0.999999) == pytest.approx(2 / 7)
    assert curve.share_within(5) == pytest.approx(5 / 7)
    assert curve.share_within(0.39) == 0.0
    # median: rank ceil(3.5) = 4 -> 1.0; p90: rank ceil(6.3) = 7 > 5 responses: not reached
    assert curve.quantile(0.5) == 1.0
    assert curve.quantile(0.9) is None
    # q = 0.7: rank ceil(4.9) = 5 -> 2.5 s, where F first reaches 5/7 >= 0.7 (Q(q) <= k
    # exactly when F(k) >= q)
    assert curve.quantile(0.7) == 2.5
    assert curve.share_within(2.5) >= 0.7 > curve.share_within(2.499999)
    # the curve steps at each distinct latency; the two 1.0 s responses make one step
    assert curve.steps() == ((0.4, 1 / 7), (0.9, 2 / 7), (1.0, 4 / 7), (2.5, 5 / 7))
    # horizon: T - E is 6.0 for all but the 4.0 -> 8.5 sample (4.5 s)
    assert curve.min_observable_s == 4.5


def test_interruption_curve_is_over_exercised_samples_and_horizon_over_eligible() -> None:
    rows = [interrupt("response", 0.0), interrupt("speaking_at_end"),
            interrupt("not_exercised", r=10.0, t=13.0), interrupt("response", 1.5),
            interrupt("no_response")]
    curve = latency_curve(rows)
    # 4 exercised, 2 responses; the not-exercised sample still bounds the horizon (3 s)
    assert (curve.n, curve.responded) == (4, 2)
    assert curve.share_within(0) == 0.25 and curve.share_within(2) == 0.5
    assert curve.quantile(0.5) == 1.5          # rank ceil(2) = 2
    assert curve.quantile(0.75) is None        # rank 3 > 2 responses
    assert curve.min_observable_s == 3.0
    assert curve.steps() == ((0.0, 0.25), (1.5, 0.5))


def test_no_samples_has_no_value() -> None:
    curve = latency_curve([turn("", eligible=False)])
    assert curve.n == 0 and curve.min_observable_s is None
    assert curve.share_within(1) is None and curve.quantile(0.5) is None
    assert curve.steps() == ()


def test_rows_of_other_or_mixed_tasks_are_refused() -> None:
    with pytest.raises(ValueError, match="one of"):
        latency_curve([turn("response", 1.0), interrupt("response", 1.0)])
    with pytest.raises(ValueError, match="pause_handling"):
        latency_curve([{"task": "pause_handling", "eligible": True}])
