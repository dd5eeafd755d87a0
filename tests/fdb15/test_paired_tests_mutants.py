"""Cases added for mutants of ``fdb/v15/prosody/paired_tests.py`` that the paired-test tests let
survive (docs/testing.md, "Surviving mutants"): the records, the notes of the cases with
no test, the smallest testable n, and the sentence under the table."""

from __future__ import annotations

import math

import pytest

from speecheval.fdb.v15.prosody.paired_tests import (
    Measured,
    PairedTest,
    _finite,
    correction_statement,
    paired_test,
)


def trials(*pairs: tuple[float | None, float | None]) -> dict[str, dict[str, dict[str, Measured]]]:
    """Trials s0, s1, ... with measure ``f0`` in parts pre and post."""
    def m(value: float | None) -> Measured:
        return Measured(value) if value is not None else Measured(None, "unvoiced")
    return {f"s{i}": {"pre": {"f0": m(a)}, "post": {"f0": m(b)}}
            for i, (a, b) in enumerate(pairs)}


def test_a_measure_has_a_value_or_a_reason() -> None:
    for bad in ((None, None), (1.0, "both")):
        with pytest.raises(ValueError) as refused:
            Measured(*bad)
        assert str(refused.value) == ("a measure has either a value or a reason, not both "
                                      "or neither")
    assert Measured(2.5).report_value() == 2.5
    assert Measured(None, "unvoiced").report_value() == {"missing": "unvoiced"}


def test_no_complete_pair_keeps_the_names_and_says_why() -> None:
    result = paired_test("f0", "pre", "post", trials((None, 1.0), (2.0, None)))
    assert (result.measure, result.before, result.after, result.n) == ("f0", "pre", "post", 0)
    assert result.note == "no complete pair"
    assert result.dropped == (("s0", "pre: unvoiced"), ("s1", "post: unvoiced"))


def test_two_pairs_are_enough_for_a_test() -> None:
    # pairs (1, 2) and (2, 4): differences 1 and 2, mean 1.5, SD sqrt(0.5) (ddof 1),
    # d_z = 1.5 / sqrt(0.5) = 2.1213..., t = 1.5 / (sqrt(0.5) / sqrt(2)) = 3.0 with 1 degree
    # of freedom (a Cauchy distribution): p = 1 - 2 atan(3) / pi = 0.204832764699...
    result = paired_test("f0", "pre", "post", trials((1.0, 2.0), (2.0, 4.0)))
    assert result.n == 2 and result.note is None
    assert (result.mean_before, result.mean_after, result.mean_difference) == (1.5, 3.0, 1.5)
    assert result.t == pytest.approx(3.0, rel=1e-12)
    assert result.p == pytest.approx(1 - 2 * math.atan(3) / math.pi, rel=1e-12)
    assert result.d_z == pytest.approx(1.5 / math.sqrt(0.5), rel=1e-12)


def test_equal_differences_have_no_test() -> None:
    # differences 1 and 1: SD 0, so no t (a division by zero)
    result = paired_test("f0", "pre", "post", trials((1.0, 2.0), (3.0, 4.0)))
    assert result.note == "every difference is the same: no test"
    assert (result.t, result.p, result.d_z, result.mean_difference) == (None, None, None, 1.0)


def test_a_statistic_that_is_not_finite_is_reported_as_none() -> None:
    assert _finite(float("inf")) is None and _finite(float("nan")) is None
    assert _finite(-2.5) == -2.5


def test_the_record_names_every_field() -> None:
    test = PairedTest("f0", "pre", "post", 3, 1.0, 2.0, 1.0, 4.0, 0.05, 2.0,
                      (("s9", "pre: unvoiced"),), note="n", p_corrected=0.1)
    assert test.report_dict() == {
        "measure": "f0", "comparison": "pre->post", "n": 3, "mean_before": 1.0,
        "mean_after": 2.0, "mean_difference": 1.0, "t": 4.0, "p": 0.05,
        "p_corrected": 0.1, "d_z": 2.0, "note": "n",
        "dropped": [{"sample_id": "s9", "reason": "pre: unvoiced"}]}


def test_the_sentence_counts_the_tests_with_a_p_value() -> None:
    # three tests, two with a p-value: the sentence says 2
    tested = PairedTest("f0", "pre", "post", 3, 1.0, 2.0, 1.0, 4.0, 0.05, 2.0, ())
    untested = PairedTest("f0", "clean", "post", 0, None, None, None, None, None, None, ())
    tests = [tested, untested, tested]
    assert correction_statement("holm", tests) == (
        "p-values Holm-corrected over the 2 tests of this table (p_corrected); p is the "
        "uncorrected value.")
    assert correction_statement("none", tests) == (
        "p-values are not corrected for the 2 tests of this table (run with --correction "
        "holm to correct them).")
