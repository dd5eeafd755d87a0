"""The page's Holm column: one family per scenario, the adjusted p printed as the paper
prints p."""

from __future__ import annotations

from speecheval.fdb.v15.report.comparisons import holm_texts


def test_holm_over_one_scenarios_family_worked_by_hand() -> None:
    # Six tests with a p, one without (no test: not in the family), m = 6. Sorted
    # ascending, the i-th becomes p_(i) x (m - i + 1), then the running maximum:
    #   .0002 x 6 = .0012 -> .0012 (printed .001)
    #   .01   x 5 = .05   -> .05
    #   .02   x 4 = .08   -> .08
    #   .03   x 3 = .09   -> .09
    #   .04   x 2 = .08   -> .09 (the running maximum keeps the order)
    #   .45   x 1 = .45   -> .45
    p = [0.01, 0.04, None, 0.03, 0.0002, 0.45, 0.02]
    assert holm_texts(p) == [".050", ".090", "–", ".090", ".001", ".450", ".080"]


def test_holm_is_capped_at_one_and_a_single_test_is_its_own_p() -> None:
    # m = 2: .3 x 2 = .6; .8 x 1 = .8. m = 2: .6 x 2 = 1.2 -> 1; .7 -> max(1, .7) = 1
    assert holm_texts([0.8, 0.3]) == [".800", ".600"]
    assert holm_texts([0.6, 0.7]) == ["1.000", "1.000"]
    # one test: m = 1, nothing to adjust; below a thousandth it prints as the paper does
    assert holm_texts([0.00004]) == ["<.001"]
