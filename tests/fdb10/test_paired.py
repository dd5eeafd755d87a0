"""The paired comparison of two systems, against counts worked by hand."""

from __future__ import annotations

from typing import Any

import pytest

from speecheval.fdb.v10.scoring.paired import Split, pair_subset

UI, TT, P = "synthetic_user_interruption", "candor_turn_taking", "candor_pause_handling"


def ui(sid: str, outcome: str | None, latency: float | None = None) -> dict[str, Any]:
    """An interruption row; ``None`` is an ineligible sample."""
    row: dict[str, Any] = {"sample_id": f"{UI}/{sid}", "subset": UI,
                           "task": "user_interruption", "eligible": outcome is not None,
                           "input_duration_s": 14.0}
    if outcome is not None:
        row |= {"outcome": outcome, "R": 6.0, "latency_s": latency}
    return row


def test_interruption_pairs_exercised_in_both() -> None:
    first = [ui("1", "response", 0.5), ui("2", "response", 1.0), ui("3", "not_exercised"),
             ui("4", "not_exercised"), ui("5", "speaking_at_end"), ui("6", None),
             ui("7", "response", 2.0), ui("8", "no_response"), ui("9", "response", 0.2)]
    second = [ui("1", "response", 1.5), ui("2", "not_exercised"), ui("3", "response", 0.4),
              ui("4", "not_exercised"), ui("5", "response", 0.3), ui("6", "response", 0.1),
              ui("7", "response", 2.0), ui("8", "response", 0.9), ui("10", "response", 1.0)]
    paired = pair_subset(UI, "user_interruption", first, second)
    # selected: 1-8 in both (8), 9 only in the first, 10 only in the second
    assert paired.selected == (8, 1, 1)
    # eligible: 6 is ineligible in the first only; the other 7 eligible in both
    assert paired.eligible == Split(both=7, first_only=0, second_only=1, neither=0)
    # of the 7 eligible in both (1 2 3 4 5 7 8): exercised in both 1 5 7 8; first only 2;
    # second only 3; neither 4
    assert paired.exercised == Split(both=4, first_only=1, second_only=1, neither=1)
    assert paired.paired == 4
    # outcomes over 1 5 7 8, in the bars' order: speaking_at_end/response (5),
    # response/response (1, 7), no_response/response (8)
    assert paired.outcomes == (("speaking_at_end", "response", 1), ("response", "response", 2),
                               ("no_response", "response", 1))
    assert paired.curves is not None
    a, b = paired.curves
    # first: responses 0.5 (1) and 2.0 (7) of 4; second: 1.5 0.3 2.0 0.9, all 4
    assert (a.n, a.latencies_us) == (4, (500_000, 2_000_000))
    assert (b.n, b.latencies_us) == (4, (300_000, 900_000, 1_500_000, 2_000_000))
    assert a.share_within(1) == 0.25 and b.share_within(1) == 0.5
    # both responded on 1 (first sooner) and 7 (same latency)
    assert paired.sooner == (1, 0, 1)


def test_turn_taking_pairs_eligible_in_both() -> None:
    def tt(sid: str, eligible: bool, outcome: str, latency: float | None) -> dict[str, Any]:
        return {"sample_id": f"{TT}/{sid}", "subset": TT, "task": "smooth_turn_taking",
                "eligible": eligible, "input_duration_s": 8.0, "outcome": outcome,
                "E": 3.0, "latency_s": latency}

    first = [tt("1", True, "response", 0.8), tt("2", True, "early_start", None),
             tt("3", False, "", None), tt("4", True, "response", 0.4)]
    second = [tt("1", True, "response", 0.6), tt("2", True, "response", 1.2),
              tt("3", False, "", None), tt("4", False, "", None)]
    paired = pair_subset(TT, "smooth_turn_taking", first, second)
    assert paired.eligible == Split(both=2, first_only=1, second_only=0, neither=1)
    assert paired.exercised is None and paired.paired == 2
    assert paired.outcomes == (("response", "response", 1), ("early_start", "response", 1))
    assert paired.sooner == (0, 1, 0)
    assert paired.curves is not None
    assert [c.min_observable_s for c in paired.curves] == [5.0, 5.0]


def test_pause_pairs_intrusions_and_has_no_curve() -> None:
    def p(sid: str, intrusion: bool) -> dict[str, Any]:
        return {"sample_id": f"{P}/{sid}", "subset": P, "task": "pause_handling",
                "eligible": True, "pause_intrusion": intrusion}

    paired = pair_subset(P, "pause_handling", [p("1", True), p("2", False), p("3", True)],
                         [p("1", True), p("2", True), p("3", True)])
    assert paired.outcomes == (("no intrusion", "intrusion", 1), ("intrusion", "intrusion", 2))
    assert paired.curves is None and paired.sooner is None


def test_rows_of_another_task_are_refused_and_no_rows_pair_nothing() -> None:
    row = ui("1", "response", 0.5)
    with pytest.raises(ValueError, match="rows of tasks"):
        pair_subset(UI, "user_interruption", [row], [row | {"task": "smooth_turn_taking"}])
    empty = pair_subset(UI, "user_interruption", [], [])
    assert (empty.selected, empty.paired, empty.outcomes) == ((0, 0, 0), 0, ())
    assert empty.curves is not None and empty.curves[0].n == 0


def test_sign_test_p_by_hand() -> None:
    from speecheval.core.p_text import paper_p_text
    from speecheval.fdb.v10.scoring.paired import sign_test_p

    # 9 against 1 of 10: P(X <= 1) = (1 + 10) / 2**10 = 11/1024; both tails 22/1024
    assert sign_test_p(9, 1) == pytest.approx(22 / 1024)
    assert paper_p_text(sign_test_p(1, 9)) == ".021"
    # 20 against 0: 2 / 2**20, below a thousandth
    assert sign_test_p(20, 0) == pytest.approx(2 / 2**20)
    assert paper_p_text(sign_test_p(20, 0)) == "<.001"
    # 5 against 5: every outcome is at least as likely as the one seen
    assert sign_test_p(5, 5) == pytest.approx(1.0)
