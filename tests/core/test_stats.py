"""Statistics shared by every benchmark."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from speecheval.core.stats import (
    bootstrap_quantile,
    bootstrap_ratio,
    quantile_rank,
    rank_quantile,
    resample_indices,
    wilson_interval,
)


@pytest.mark.parametrize("n", [1, 2, 7, 200])
def test_wilson_endpoints_are_exact_at_the_extremes(n: int) -> None:
    assert wilson_interval(0, n)[0] == 0.0   # exactly, not 1e-17
    assert wilson_interval(n, n)[1] == 1.0


def test_wilson_matches_the_closed_form() -> None:
    # 1 of 2: p = 0.5, z^2 = 3.841459; centre = (0.5 + 0.960365) / 2.920729 = 0.5;
    # half = 1.959964 * sqrt(0.125 + 0.240091) / 2.920729 = 1.184265 / 2.920729 = 0.405469
    low, high = wilson_interval(1, 2)
    assert low == pytest.approx(0.5 - 0.405469, abs=1e-6)
    assert high == pytest.approx(0.5 + 0.405469, abs=1e-6)
    assert wilson_interval(0, 0) is None


def test_wilson_agrees_with_scipy() -> None:
    for k, n in [(3, 10), (17, 119), (1, 200)]:
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert wilson_interval(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_quantile_rule_has_no_interpolation() -> None:
    values = [5.0, 1.0, 3.0, 2.0]
    # N = 4: median rank ceil(2) = 2 -> 2.0; p90 rank ceil(3.6) = 4 -> 5.0
    assert rank_quantile(values, 0.5) == 2.0
    assert rank_quantile(values, 0.9) == 5.0
    assert quantile_rank(0.9, 10) == 9           # 0.9 * 10 = 9 exactly
    assert quantile_rank(0.975, 2000) == 1950


def test_bootstrap_is_deterministic_and_resamples_whole_samples() -> None:
    values = np.array([0.2, 0.4, 0.9, np.inf, 1.3])
    first = bootstrap_quantile(values, 0.5)
    assert first == bootstrap_quantile(values, 0.5)
    # Independent recomputation with a plain loop over the same index matrix.
    indices = resample_indices(5)
    medians = sorted(sorted(values[row])[2] for row in indices)
    assert first is not None
    assert first.low == medians[49] and first.resamples_used == 2000   # ceil(0.025*2000)
    expected_high = medians[1949]
    assert (first.high is None) == np.isinf(expected_high)
    if first.high is not None:
        assert first.high == expected_high


def test_bootstrap_ratio_skips_resamples_without_pause_time() -> None:
    # Sample 0 has no pause time; a resample drawing only sample 0 has no ratio.
    num, den = [0.0, 1.0], [0.0, 2.0]
    interval = bootstrap_ratio(num, den)
    indices = resample_indices(2)
    all_zero = int(np.sum((indices == 0).all(axis=1)))
    assert 0 < all_zero < 2000
    assert interval is not None and interval.resamples_used == 2000 - all_zero
    # Every defined resample has ratio 0.5 (sum of num over sum of den scales together).
    assert interval.low == interval.high == 0.5


def test_bootstrap_of_nothing() -> None:
    assert bootstrap_ratio([], []) is None
    assert bootstrap_quantile([], 0.5) is None
    interval = bootstrap_ratio([0.0], [0.0])
    assert interval is not None and interval.resamples_used == 0 and interval.low is None


def test_resample_indices_are_numpy_default_rng_seed_0() -> None:
    # The documented generator, pinned: a change of generator or seed must fail here.
    expected = np.random.default_rng(0).integers(0, 7, size=(2000, 7))
    assert np.array_equal(resample_indices(7), expected)


def test_resample_indices_kept_for_the_next_call_are_the_same_draw_and_read_only() -> None:
    # the second call hands out the kept matrix: equal to a fresh generator's draw, and
    # no caller can change it for the next one
    first, again = resample_indices(7), resample_indices(7)
    assert again is first
    assert np.array_equal(again, np.random.default_rng(0).integers(0, 7, size=(2000, 7)))
    with pytest.raises(ValueError):
        again[0, 0] = 1
    # another size is drawn afresh and replaces it; the first size is drawn again after
    assert np.array_equal(resample_indices(3), np.random.default_rng(0).integers(0, 3, (2000, 3)))
    assert resample_indices(7) is not first and np.array_equal(resample_indices(7), first)


def test_bootstrap_ratio_endpoints_use_the_resamples_kept() -> None:
    # Three samples with different ratios, one without pause time (den 0), so some
    # resamples are skipped and the kept ratios vary. Independent loop: keep each
    # resample with den > 0, sort the ratios, take ranks ceil(0.025 B') and
    # ceil(0.975 B') of the B' kept.
    num = np.array([0.0, 1.0, 3.0, 0.5])
    den = np.array([0.0, 4.0, 4.0, 1.0])
    rows = np.random.default_rng(0).integers(0, 4, size=(2000, 4))
    kept = sorted(num[r].sum() / den[r].sum() for r in rows if den[r].sum() > 0)
    b = len(kept)
    assert b < 2000
    interval = bootstrap_ratio(num, den)
    assert interval is not None and interval.resamples_used == b
    assert interval.low == kept[quantile_rank(0.025, b) - 1]
    assert interval.high == kept[quantile_rank(0.975, b) - 1]
    assert interval.low < interval.high
