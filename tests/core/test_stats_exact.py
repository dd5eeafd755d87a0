"""Exact arithmetic in the statistics: cases where floating point would give another answer.

Each case below was chosen because the obvious float computation is wrong on it, so a
change from exact to float arithmetic (or a shifted rank) fails here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from speecheval.core.stats import (
    bootstrap_quantile,
    bootstrap_ratio,
    linear_percentile,
    quantile_rank,
    rank_quantile,
    resample_indices,
    wilson_interval,
)


def test_quantile_rank_is_exact_where_float_rounds_up() -> None:
    # q = 0.07, N = 100: exactly 7, so rank 7. In floats 0.07 * 100 = 7.000000000000001,
    # whose ceiling is 8; Fraction(0.07) (the binary value, 0.0700000000000000066...)
    # times 100 is also just above 7. Only the decimal value of q gives 7.
    assert 0.07 * 100 > 7 and math.ceil(0.07 * 100) == 8   # the trap is real
    assert quantile_rank(0.07, 100) == 7
    # 0.14 * 50 = 7.000000000000001 in floats, exactly 7; 0.28 * 25 likewise 7.
    assert quantile_rank(0.14, 50) == 7
    assert quantile_rank(0.28, 25) == 7
    # A value just above an integer rank still rounds up: 0.071 * 100 = 7.1 -> 8.
    assert quantile_rank(0.071, 100) == 8


def test_rank_quantile_picks_the_seventh_of_a_hundred() -> None:
    # values 1..100 shuffled: Q(0.07) is the 7th smallest, 7.0 (a float rank would give 8.0)
    values = np.random.default_rng(3).permutation(np.arange(1, 101, dtype=np.float64))
    assert rank_quantile(values, 0.07) == 7.0


def test_rank_quantile_puts_the_kth_value_in_place() -> None:
    # 1000 uniform values (seed 4): Q(0.1) is the ceil(0.1 * 1000) = 100th smallest.
    # Partitioning around a neighbouring index would usually, but not here, leave the
    # 100th value in place, so this case tells the exact rank from a near miss.
    values = np.random.default_rng(4).random(1000)
    assert rank_quantile(values, 0.1) == np.sort(values)[99]


def test_quantile_rank_is_at_least_one_and_at_most_n() -> None:
    # q = 0.01, N = 10: 0.1 -> ceil 1; q = 1: rank N.
    assert quantile_rank(0.01, 10) == 1
    assert quantile_rank(1.0, 10) == 10
    assert rank_quantile([3.0, 1.0, 2.0], 1.0) == 3.0
    assert rank_quantile([3.0, 1.0, 2.0], 0.01) == 1.0


@pytest.mark.parametrize("q", [0.0, -0.5, 1.0000001, 2.0])
def test_quantile_outside_the_unit_interval_is_refused(q: float) -> None:
    with pytest.raises(ValueError, match=rf"^quantile must be in \(0, 1\], got {q}$"):
        quantile_rank(q, 10)


def test_quantile_of_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="^quantile of an empty set$"):
        quantile_rank(0.5, 0)
    with pytest.raises(ValueError, match="^rank_quantile needs a non-empty 1-D array$"):
        rank_quantile([], 0.5)
    with pytest.raises(ValueError, match="^rank_quantile needs a non-empty 1-D array$"):
        rank_quantile([[1.0, 2.0]], 0.5)


def test_rank_quantile_of_integers_is_a_float() -> None:
    # integer input is read as float64: the result is a float, and +inf is "not reached"
    result = rank_quantile([4, 1, 3], 0.5)   # 2nd smallest of 3
    assert result == 3.0 and isinstance(result, float)


@pytest.mark.parametrize("n", [10, 13, 25])
def test_wilson_upper_endpoint_is_exactly_one_where_the_formula_falls_short(n: int) -> None:
    # At count = n the closed form is 1 mathematically, but in floats centre + half is
    # 0.9999999999999999 for these n: only the explicit rule gives exactly 1.0.
    z = 1.959963984540054
    z2 = z * z
    denominator = 1 + z2 / n
    formula = (1 + z2 / (2 * n)) / denominator + z * math.sqrt(z2 / (4 * n * n)) / denominator
    assert formula < 1.0
    # the lower endpoint is centre - half = (1 + z^2/2n - z^2/2n) / denominator
    low, high = wilson_interval(n, n)
    assert low == pytest.approx(1 / denominator, abs=1e-15) and high == 1.0


@pytest.mark.parametrize("n", [3, 6, 12])
def test_wilson_lower_endpoint_is_exactly_zero_where_the_formula_is_above(n: int) -> None:
    assert wilson_interval(0, n)[0] == 0.0


@pytest.mark.parametrize(("count", "n"), [(3, 2), (-1, 4), (0, -1)])
def test_wilson_refuses_impossible_counts(count: int, n: int) -> None:
    with pytest.raises(ValueError, match=rf"^need 0 <= count <= n, got count={count}, n={n}$"):
        wilson_interval(count, n)


def test_resample_indices_cover_zero_to_n_minus_one() -> None:
    # default_rng(0).integers(0, 3, size=(2000, 3)): every index 0, 1, 2 appears, nothing else
    indices = resample_indices(3)
    assert indices.shape == (2000, 3)
    assert set(np.unique(indices).tolist()) == {0, 1, 2}
    assert np.array_equal(indices, np.random.default_rng(0).integers(0, 3, size=(2000, 3)))


def test_bootstrap_records_the_resample_count() -> None:
    interval = bootstrap_quantile([1.0, 2.0, 3.0], 0.5)
    assert interval is not None and (interval.resamples, interval.resamples_used) == (2000, 2000)
    interval = bootstrap_quantile([1.0, 2.0, 3.0], 0.5, resamples=100)
    assert interval is not None and (interval.resamples, interval.resamples_used) == (100, 100)
    ratio = bootstrap_ratio([0.0], [0.0], resamples=10)
    # every resample has a zero denominator: no statistic, both endpoints undefined
    assert ratio is not None and (ratio.low, ratio.high, ratio.resamples,
                                  ratio.resamples_used) == (None, None, 10, 0)
    assert bootstrap_ratio([], []) is None and bootstrap_quantile([], 0.5) is None


def test_bootstrap_ratio_refuses_mismatched_arrays() -> None:
    message = "^numerators and denominators must be 1-D arrays of equal length$"
    with pytest.raises(ValueError, match=message):
        bootstrap_ratio([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match=message):
        bootstrap_ratio([[1.0]], [[1.0]])


def test_bootstrap_ratio_uses_the_seed_it_is_given() -> None:
    # per-sample ratios of 1/1, 2/1, 3/1, 4/1 resampled 50 times with seed 7: the pooled
    # ratio of a resample is its mean here; endpoints are the ceil(0.025 * 50) = 2nd and
    # ceil(0.975 * 50) = 49th smallest of those means (recomputed with plain numpy)
    values = np.array([1.0, 2.0, 3.0, 4.0])
    means = np.sort(values[np.random.default_rng(7).integers(0, 4, size=(50, 4))].sum(axis=1)
                    / 4)
    interval = bootstrap_ratio(values, np.ones(4), resamples=50, seed=7)
    assert interval is not None and (interval.low, interval.high) == (means[1], means[48])


def test_linear_percentile_interpolates_and_is_none_when_empty() -> None:
    # [1, 2, 3, 4] at 25 %: position 0.25 * 3 = 0.75 -> 1 + 0.75 = 1.75
    assert linear_percentile([4, 1, 3, 2], 25) == 1.75
    assert isinstance(linear_percentile([1, 2], 50), float)
    assert linear_percentile([], 50) is None


def test_bootstrap_quantile_equals_a_plain_numpy_recomputation() -> None:
    # 1000 values, seed 5, 300 resamples: each resample's median is the ceil(0.5 * 1000) =
    # 500th smallest of its draw, the interval the ceil(0.025 * 300) = 8th and
    # ceil(0.975 * 300) = 293rd smallest medians. Recomputed with a full sort, so any
    # partial-sort shortcut that does not put the k-th value in place shows.
    values = np.random.default_rng(11).exponential(1.0, 1000)
    draws = np.random.default_rng(5).integers(0, 1000, size=(300, 1000))
    medians = np.sort(np.sort(values[draws], axis=1)[:, 499])
    interval = bootstrap_quantile(values, 0.5, resamples=300, seed=5)
    assert interval is not None
    assert (interval.low, interval.high) == (medians[7], medians[292])
    # another seed gives another interval (the seed is used, not the default 0)
    assert bootstrap_quantile(values, 0.5, resamples=300, seed=6) != interval
    assert bootstrap_quantile(values, 0.5, resamples=300) != interval
