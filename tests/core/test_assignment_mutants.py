"""Cases added for mutants of ``core/assignment.py`` that the scipy comparisons let
survive (docs/testing.md, "Surviving mutants")."""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.core.assignment import linear_sum_assignment


def test_a_boolean_matrix_is_maximised_as_numbers() -> None:
    # True/False are costs 1/0: the diagonal holds the two ones, total 2 (numpy cannot
    # negate a boolean array, so the matrix must be read as numbers first)
    rows, cols = linear_sum_assignment([[True, False], [False, True]], maximize=True)
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 1]


def test_a_tall_matrix_gives_integer_indices() -> None:
    # 3 rows, 2 columns: row 1 -> column 1 (cost 1) and row 2 -> column 0 (cost 0), total
    # 1, the least of the six pairings; both index arrays are integer (they index arrays)
    rows, cols = linear_sum_assignment([[1, 2], [2, 1], [0, 5]])
    assert rows.tolist() == [1, 2] and cols.tolist() == [1, 0]
    assert rows.dtype == np.intp and cols.dtype == np.intp


def test_a_value_that_is_not_finite_is_named() -> None:
    with pytest.raises(ValueError) as refused:
        linear_sum_assignment([[1.0, float("nan")]])
    assert str(refused.value) == "the cost matrix holds a value that is not finite"


def test_ties_in_fractional_costs_are_broken_as_scipy_breaks_them() -> None:
    # 4 rows, 3 columns; two optimal pairings of total 0.3 + 0.1 + 0.0 = 0.4: row 0 to
    # column 2 and row 1 to column 1, or row 0 to column 1 and row 1 to column 2 (row 3 to
    # column 0 either way). scipy.optimize.linear_sum_assignment (1.x) returns the first;
    # so must this solver, whose dual variables start at 0 (starting them at 1 shifts every
    # reduced cost by 1 and rounds 1/3 and 2/3 differently, which picks the second).
    cost = [[1 / 3, 0.3, 0.3], [0.1, 0.1, 0.1], [0.2, 5.0, 2 / 3], [0.0, 1 / 3, 2 / 3]]
    rows, cols = linear_sum_assignment(cost)
    assert rows.tolist() == [0, 1, 3] and cols.tolist() == [2, 1, 0]
