"""Cases added for mutants of ``core/stats.py`` that the other tests let survive
(docs/testing.md, "Surviving mutants")."""

from __future__ import annotations

import pytest

from speecheval.core.stats import bootstrap_quantile, quantile_rank, rank_quantile


def test_a_single_value_is_every_quantile_of_itself() -> None:
    # N = 1 is the smallest set with a quantile: ceil(q * 1) is 1 for every q in (0, 1]
    # (q = 0.01 -> ceil(0.01) = 1, q = 1 -> 1), so Q(q) is the one value; N = 0 is refused.
    assert quantile_rank(0.01, 1) == quantile_rank(0.5, 1) == quantile_rank(1.0, 1) == 1
    assert rank_quantile([2.5], 0.5) == 2.5
    # every resample of one sample is that sample, so both endpoints are its value
    interval = bootstrap_quantile([2.5], 0.5, resamples=10)
    assert interval is not None
    assert (interval.low, interval.high, interval.resamples_used) == (2.5, 2.5, 10)
    with pytest.raises(ValueError, match="quantile of an empty set"):
        quantile_rank(0.5, 0)
