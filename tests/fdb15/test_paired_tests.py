"""Paired tests on hand-made data: means and d_z by hand, t and p against scipy, drops
with reasons, Holm by hand."""

from __future__ import annotations

import pytest
from scipy import stats

from speecheval.fdb.v15.prosody.paired_tests import (
    Measured,
    correction_statement,
    holm,
    paired_test,
    paired_tests,
)


def _trials(rows: dict[str, tuple[float | None, float | None, float | None]]
            ) -> dict[str, dict[str, dict[str, Measured]]]:
    def one(value: float | None, part: str) -> Measured:
        return Measured(value) if value is not None else Measured(None, f"no speech in {part}")

    return {sample: {"pre": {"wpm": one(pre, "pre")}, "post": {"wpm": one(post, "post")},
                     "clean": {"wpm": one(clean, "clean")}}
            for sample, (pre, post, clean) in rows.items()}


# pre, post, clean
ROWS = {"a": (100.0, 110.0, 120.0), "b": (120.0, 126.0, 118.0), "c": (90.0, 104.0, 100.0),
        "d": (130.0, 132.0, None), "e": (None, 140.0, 135.0)}


def test_pre_to_post_by_hand_and_against_scipy() -> None:
    test = paired_test("wpm", "pre", "post", _trials(ROWS))
    # complete pairs a, b, c, d: differences 10, 6, 14, 2; mean 32 / 4 = 8
    # deviations 2, -2, 6, -6: sum of squares 80, SD sqrt(80 / 3) = 5.163978; d_z = 8 / 5.163978
    assert test.n == 4
    assert test.mean_before == pytest.approx(110.0)     # (100 + 120 + 90 + 130) / 4
    assert test.mean_after == pytest.approx(118.0)      # (110 + 126 + 104 + 132) / 4
    assert test.mean_difference == pytest.approx(8.0)
    assert test.d_z == pytest.approx(8.0 / (80.0 / 3) ** 0.5)
    # t = 8 / (5.163978 / 2) = 3.098387
    assert test.t == pytest.approx(3.0983866769659336)
    reference = stats.ttest_rel([110, 126, 104, 132], [100, 120, 90, 130])
    assert test.p == pytest.approx(float(reference.pvalue))
    assert test.dropped == (("e", "pre: no speech in pre"),)


def test_clean_to_post_drops_the_missing_clean() -> None:
    test = paired_test("wpm", "clean", "post", _trials(ROWS), outliers="none")
    # pairs a, b, c, e: differences -10, 8, 4, 5; mean 7 / 4 = 1.75
    assert test.n == 4
    assert test.mean_difference == pytest.approx(1.75)
    reference = stats.ttest_rel([110, 126, 104, 140], [120, 118, 100, 135])
    assert test.t == pytest.approx(float(reference.statistic))
    assert test.p == pytest.approx(float(reference.pvalue))
    assert [s for s, _ in test.dropped] == ["d"]
    assert test.dropped[0][1] == "clean: no speech in clean"


def test_mad_outliers_are_dropped_and_listed_as_the_official_default() -> None:
    # clean -> post differences a -10, b 8, c 4, e 5: median 4.5, absolute deviations
    # 14.5, 3.5, 0.5, 0.5, MAD 2.0; bounds 4.5 +- 3.5 x 1.4826 x 2 = [-5.8782, 14.8782]:
    # a is out; b, c, e remain: differences 8, 4, 5, mean 17 / 3
    test = paired_test("wpm", "clean", "post", _trials(ROWS))
    assert test.n == 3
    assert test.mean_difference == pytest.approx(17.0 / 3.0)
    reference = stats.ttest_rel([126, 104, 140], [118, 100, 135])
    assert test.p == pytest.approx(float(reference.pvalue))
    assert test.dropped == (
        ("d", "clean: no speech in clean"),
        ("a", "outlier: difference -10 outside median +- 3.5 x 1.4826 x MAD "
              "[-5.8782, 14.8782]"))
    # pre -> post (10, 6, 14, 2: median 8, MAD 4, bounds 8 +- 20.7564): nothing is out
    assert paired_test("wpm", "pre", "post", _trials(ROWS)).n == 4
    # a MAD of 0 drops nothing (the script's rule): differences 1, 1, 1, 9
    flat = _trials({"a": (1.0, 2.0, 0.0), "b": (2.0, 3.0, 0.0), "c": (3.0, 4.0, 0.0),
                    "d": (0.0, 9.0, 0.0)})
    assert paired_test("wpm", "pre", "post", flat).n == 4
    with pytest.raises(ValueError, match="outliers must be"):
        paired_tests(["wpm"], flat, outliers="iqr")


def test_too_few_or_constant_pairs_have_no_test() -> None:
    one = paired_test("wpm", "pre", "post", _trials({"a": (100.0, 110.0, 1.0)}))
    assert (one.n, one.p, one.mean_difference, one.note) == (1, None, 10.0,
                                                             "one complete pair: no test")
    same = paired_test("wpm", "pre", "post",
                       _trials({"a": (100.0, 110.0, 1.0), "b": (50.0, 60.0, 1.0)}))
    assert same.p is None and same.d_z is None and same.note is not None
    none = paired_test("wpm", "pre", "post", _trials({"a": (None, None, 1.0)}))
    assert none.n == 0 and none.dropped == (("a", "pre: no speech in pre; "
                                                   "post: no speech in post"),)


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.03, 0.04 of m = 3: 3 * 0.01 = 0.03; max(0.03, 2 * 0.03) = 0.06;
    # max(0.06, 1 * 0.04) = 0.06
    assert holm([0.01, 0.04, None, 0.03]) == pytest.approx([0.03, 0.06, None, 0.06])
    assert holm([0.6, 0.9]) == [1.0, 1.0]          # 2 * 0.6 capped at 1


def test_correction_only_when_asked() -> None:
    plain = paired_tests(["wpm"], _trials(ROWS))
    assert [t.p_corrected for t in plain] == [None, None]
    assert "not corrected" in correction_statement("none", plain)
    corrected = paired_tests(["wpm"], _trials(ROWS), correction="holm")
    low, high = sorted(t.p for t in corrected if t.p is not None)
    by_p = {t.p: t.p_corrected for t in corrected}
    assert by_p[low] == pytest.approx(min(1.0, 2 * low))
    assert by_p[high] == pytest.approx(max(min(1.0, 2 * low), high))
    assert "Holm" in correction_statement("holm", corrected)
    with pytest.raises(ValueError, match="correction"):
        paired_tests(["wpm"], _trials(ROWS), correction="bonferroni")
