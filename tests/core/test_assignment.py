"""Our assignment solver picks the same pairs as scipy's, ties included.

The speaker mapping of DER and the pairing of cpWER must not change when the solver does:
where several assignments are optimal, scipy's choice is the one every earlier result
used. Small integer matrices (0-3) are full of ties, in both orientations and both
directions.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment as scipy_assignment

from speecheval.core.assignment import linear_sum_assignment


@pytest.mark.parametrize("seed", range(40))
def test_same_pairs_as_scipy_on_tied_matrices(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(50):
        shape = tuple(int(x) for x in rng.integers(1, 9, 2))
        cost = rng.integers(0, 4, shape) if rng.random() < 0.7 else rng.random(shape)
        for maximize in (False, True):
            ours = linear_sum_assignment(cost, maximize=maximize)
            theirs = scipy_assignment(cost, maximize=maximize)
            assert [a.tolist() for a in ours] == [a.tolist() for a in theirs], (cost, maximize)


def test_empty_and_bad_matrices() -> None:
    rows, cols = linear_sum_assignment(np.zeros((0, 3)))
    assert rows.tolist() == cols.tolist() == []
    with pytest.raises(ValueError, match="not finite"):
        linear_sum_assignment([[1.0, np.inf]])
    with pytest.raises(ValueError, match="2-D"):
        linear_sum_assignment([1.0, 2.0])
