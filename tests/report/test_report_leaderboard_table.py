"""The leaderboard's best mark: marked only where the best interval is apart from every
other system's, and never on a column without a direction or with one estimate."""

from __future__ import annotations

import math

import pytest

from speecheval.report.leaderboard_table import BEST_MARK, Column, Estimate, best_index, leaderboard


def _e(value: float | None, low: float, high: float) -> Estimate:
    return Estimate(f"{value}", value, None if value is None else (low, high), "4/4")


def test_lower_is_better_and_the_intervals_must_be_apart() -> None:
    early, late = _e(0.44, 0.40, 0.50), _e(1.24, 1.14, 1.66)
    assert best_index(Column("stop", "lower", (late, early))) == 1
    # 0.50 reaches into [0.49, 0.9]: not apart, no mark
    assert best_index(Column("stop", "lower", (early, _e(0.7, 0.49, 0.9)))) is None
    # touching ends overlap too
    assert best_index(Column("stop", "lower", (early, _e(0.7, 0.50, 0.9)))) is None


def test_higher_is_better_for_a_wanted_share() -> None:
    assert best_index(Column("C_RESPOND", "higher", (_e(0.75, 0.6, 0.9),
                                                      _e(0.2, 0.1, 0.3)))) == 0
    assert best_index(Column("C_RESPOND", "none", (_e(0.75, 0.6, 0.9),
                                                    _e(0.2, 0.1, 0.3)))) is None


def test_not_reached_loses_and_one_estimate_marks_nothing() -> None:
    never = Estimate("not reached", math.inf, (math.inf, math.inf), "4/4")
    assert best_index(Column("resp", "lower", (never, _e(1.0, 0.9, 1.1)))) == 1
    assert best_index(Column("resp", "lower", (never, never))) is None
    absent = Estimate("-", None, None, "-")
    assert best_index(Column("resp", "lower", (absent, _e(1.0, 0.9, 1.1)))) is None


def test_table_rows_are_systems_with_coverage_beside_each_value() -> None:
    table = leaderboard(["a", "b"], [Column("stop", "lower", (_e(0.44, 0.4, 0.5),
                                                              _e(1.2, 1.1, 1.6)))])
    assert table.header == ("system", "stop", "coverage")
    assert table.rows == (("a", "0.44" + BEST_MARK, "4/4"), ("b", "1.2", "4/4"))
    assert table.tones == {"0.44" + BEST_MARK: "pass"}
    with pytest.raises(ValueError, match="1 cells for 2 systems"):
        leaderboard(["a", "b"], [Column("x", "lower", (_e(0.4, 0.3, 0.5),))])
