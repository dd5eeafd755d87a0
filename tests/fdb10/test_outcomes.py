"""Outcome groups of per-sample rows, as the bars, the filter and the pairing use them."""

from __future__ import annotations

import pytest

from speecheval.fdb.v10.scoring.outcomes import outcome_counts


def test_interruption_counts_in_the_order_of_the_bars() -> None:
    rows = [{"eligible": True, "outcome": o} for o in
            ("response", "not_exercised", "response", "speaking_at_end", "no_response")]
    rows.append({"eligible": False})
    # not_exercised, speaking_at_end, response, no_response, ineligible
    assert outcome_counts("user_interruption", rows) == (1, 1, 2, 1, 1)


def test_an_outcome_the_task_does_not_have_is_refused() -> None:
    with pytest.raises(ValueError, match=r"smooth_turn_taking: outcome\(s\) \['not_exercised'\]"):
        outcome_counts("smooth_turn_taking", [{"eligible": True, "outcome": "not_exercised"}])
