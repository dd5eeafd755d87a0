"""The gate's statuses and verdict on hand-made raw outputs, and the spec's canary."""

from __future__ import annotations

from typing import Any

import pytest

from speecheval.transcripts.gate.reading import read_raw
from speecheval.transcripts.gate.rules import GateRules
from speecheval.transcripts.gate.verdict import SampleFacts, gate

RULES = GateRules()


def talk(until_s: float, step_s: float = 10.0, speakers: tuple[str, ...] = ("S01", "S02"),
         start_s: float = 0.0) -> str:
    """Closed raw-tagged segments every ``step_s`` from ``start_s`` up to ``until_s``, each
    with different words (no repeats), speakers taking turns."""
    out, t, i = [], start_s, 0
    while t + step_s <= until_s + 1e-9:
        out.append(f"[{t:.2f}][{speakers[i % len(speakers)]}]line {i} about topic "
                   f"{i * 7 % 101} and item {i * 13 % 97}[{t + step_s - 0.5:.2f}]")
        t, i = t + step_s, i + 1
    return "".join(out)


def verdict(raw: str, duration: float, last_speech: float | None,
            meta: dict[str, Any] | None = None, fmt: str = "raw") -> dict[str, Any]:
    return gate(read_raw(raw, fmt), SampleFacts(duration, last_speech), meta,  # type: ignore[arg-type]
                RULES).report_dict()


def test_the_canary_is_failed_truncated_although_the_runner_succeeded() -> None:
    # The spec's MOSS canary: a 47:41 recording, the runner said "succeeded", the raw ends
    # in half a segment and its last timestamp is 1284.75 s, 44.90 % of the audio.
    # 47:41 is 2861 s plus a fraction the spec does not give; 1284.75 / 2861.0 = 44.906 %
    # would round to 44.91, so the recording is at least 2861.04 s long (1284.75 / 0.44905);
    # 2861.5 s gives 1284.75 / 2861.5 = 0.448978 -> 44.90 %.
    raw = talk(1280.0) + "[1284.75][S02]然后我们接下来聊一"
    v = verdict(raw, 2861.5, last_speech=2858.0, meta={"status": "succeeded"})
    assert v["verdict"] == "failed_truncated"
    assert v["raw_tail_status"] == "truncated" and v["raw_tail"]["reason"] == "cut_text"
    cover = v["transcript_coverage"]
    assert v["transcript_coverage_status"] == "failed"
    assert cover["last_valid_timestamp_s"] == 1284.75
    assert f"{cover['coverage_percent']:.2f}" == "44.90"
    assert cover["trailing_unsegmented_s"] == pytest.approx(2861.5 - 1284.75)
    assert v["generation_termination"]["runner_status"] == "succeeded"
    assert v["verdict_reasons"][0] == "the raw output ends in cut_text"
    assert "(44.90 % of the audio)" in v["verdict_reasons"][1]


def test_a_complete_raw_that_reaches_the_last_speech_is_engineering_complete() -> None:
    v = verdict(talk(600.0), 605.0, last_speech=600.0,
                meta={"status": "succeeded", "stop_reason": "stop", "eos": True})
    assert (v["verdict"], v["verdict_reasons"]) == ("engineering_complete", [])
    assert v["transcript_coverage_status"] == "passed"
    assert v["generation_termination_status"] == "normal_end"
    assert v["raw_tail_status"] == "complete"
    assert v["repeat_timeline_status"] == "passed"
    assert v["speaker_continuity_status"] == "no_structural_anomaly"
    assert v["speaker_continuity"]["identity_drift_accuracy"] == "unscored"


@pytest.mark.parametrize(("last_speech", "status"), [
    # the last timestamp is 599.5 (the last segment 590-599.5); with 2.0 s tolerance it
    # covers any boundary up to 601.5
    (601.5, "passed"), (601.6, "failed")])
def test_coverage_against_the_boundary_and_its_tolerance(last_speech: float,
                                                         status: str) -> None:
    v = verdict(talk(600.0), 700.0, last_speech=last_speech)
    assert v["transcript_coverage_status"] == status
    assert v["verdict"] == ("engineering_complete" if status == "passed" else "failed_truncated")


def test_a_complete_tail_with_a_coverage_gap_is_still_truncated() -> None:
    # closed segments up to 299.5 s of a recording whose speech runs to 590 s
    v = verdict(talk(300.0), 600.0, last_speech=590.0, meta={"eos": True})
    assert v["raw_tail_status"] == "complete"
    assert v["generation_termination_status"] == "eos_unconfirmed"  # an EOS proves nothing
    assert v["verdict"] == "failed_truncated"
    assert v["transcript_coverage"]["shortfall_s"] == pytest.approx(588.0 - 299.5)


def test_no_boundary_is_indeterminate() -> None:
    v = verdict(talk(600.0), 605.0, last_speech=None)
    assert v["transcript_coverage_status"] == "missing_evidence"
    assert v["verdict"] == "indeterminate_missing_coverage_evidence"
    assert v["transcript_coverage"]["last_valid_timestamp_s"] == 599.5


def test_an_empty_raw_is_truncated_when_the_sample_has_speech() -> None:
    assert verdict("\n", 600.0, last_speech=590.0)["verdict_reasons"] == [
        "the raw output is empty but the sample has speech until 590.0 s"]
    assert verdict("\n", 600.0, last_speech=590.0)["verdict"] == "failed_truncated"
    # no boundary, or speech only within the tolerance: nothing shows a cut
    assert verdict("", 600.0, last_speech=None)["verdict"] == (
        "indeterminate_missing_coverage_evidence")
    assert verdict("", 600.0, last_speech=1.5)["verdict"] == (
        "indeterminate_missing_coverage_evidence")


def test_text_without_timestamps_is_unsupported_and_at_best_indeterminate() -> None:
    v = verdict("Thanks for listening, goodbye everyone.", 600.0, 590.0, fmt="text")
    assert v["transcript_coverage_status"] == "unsupported"
    assert v["raw_tail_status"] == "unsupported"
    assert v["speaker_continuity_status"] == "unsupported"
    assert v["verdict"] == "indeterminate_missing_coverage_evidence"


@pytest.mark.parametrize(("meta", "status", "decided"), [
    ({"stop_reason": "length"}, "hit_generation_limit", "failed_truncated"),
    ({"generated_tokens": 8192, "generation_config": {"max_new_tokens": 8192}},
     "hit_generation_limit", "failed_truncated"),
    ({"generated_tokens": 8191, "max_new_tokens": 8192}, "not_reported",
     "engineering_complete"),
    ({"stop_reason": "timeout"}, "aborted", "failed_truncated"),
    ({"stop_reason": "stop"}, "normal_end", "engineering_complete"),
    (None, "not_reported", "engineering_complete"),
])
def test_termination(meta: dict[str, Any] | None, status: str, decided: str) -> None:
    v = verdict(talk(600.0), 605.0, last_speech=600.0, meta=meta)
    assert (v["generation_termination_status"], v["verdict"]) == (status, decided)


def _words(n: int, tag: str) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def test_a_repeated_sentence_of_12_tokens_is_flagged_not_failed() -> None:
    twelve = _words(12, "w")
    raw = (talk(100.0) + f"[100.00][S01]{twelve}[104.00][104.50][S01]{twelve}[108.00]"
           + talk(200.0, start_s=110.0))
    v = verdict(raw, 205.0, last_speech=199.0)
    repeats = v["repeat_timeline"]["repeats"]
    assert (repeats["12"]["regions"], repeats["24"]["regions"]) == (1, 0)
    assert repeats["12"]["examples"][0]["start_s"] == 100.0
    assert repeats["12"]["examples"][0]["block"] == twelve
    assert v["repeat_timeline_status"] == "repeats_flagged"
    assert v["verdict"] == "engineering_complete"


def test_a_loop_is_failed_repetition() -> None:
    # "thank you" 40 times is 80 tokens of period 2: a block of n tokens starts again 2
    # later while n + 2 <= 80, so windows 12, 24 and 48 hit and 96 does not
    raw = talk(100.0) + "[100.00][S01]" + "thank you " * 40 + "[130.00]"
    v = verdict(raw, 131.0, last_speech=130.0)
    repeats = v["repeat_timeline"]["repeats"]
    assert [repeats[w]["regions"] for w in ("12", "24", "48", "96")] == [1, 1, 1, 0]
    # each region covers the whole loop: 80 tokens, all but the first period (2) repeats
    assert repeats["24"]["repeated_tokens"] == 80 - 2
    assert repeats["24"]["examples"][0]["period"] == 2
    assert v["repeat_timeline_status"] == "failed"
    assert v["verdict"] == "failed_repetition_or_timeline"
    assert v["verdict_reasons"] == ["an exact adjacent repeat of 24 tokens",
                                    "an exact adjacent repeat of 48 tokens"]


def test_backwards_and_illegal_timestamps_fail_the_timeline() -> None:
    back = talk(100.0) + "[50.00][S01]again from before[55.00]" + talk(200.0, start_s=110.0)
    v = verdict(back, 205.0, last_speech=199.0)
    assert v["repeat_timeline"]["backwards_timestamps"] == 1
    assert v["repeat_timeline"]["backwards_examples"][0]["previous_start_s"] == 90.0
    assert v["verdict"] == "failed_repetition_or_timeline"
    beyond = talk(100.0) + "[100.00][S01]after the end[130.00]"
    v = verdict(beyond, 120.0, last_speech=99.0)  # 130 > 120 + 2 tolerance
    assert v["repeat_timeline"]["illegal_timestamps"] == 1
    assert v["transcript_coverage"]["last_valid_timestamp_s"] == 100.0
    assert v["verdict"] == "failed_repetition_or_timeline"


def test_a_segment_explosion_fails_the_timeline() -> None:
    # 61 segments starting at 0, 1, ..., 60 s: at most 60 start inside any [t, t + 60),
    # which the limit of 60 per minute allows
    burst = talk(61.0, step_s=1.0)
    v = verdict(burst + talk(200.0, start_s=70.0), 205.0, last_speech=199.0)
    assert v["repeat_timeline"]["max_segments_in_60_s"] == 60
    assert v["repeat_timeline"]["segment_explosion"] is False
    v = verdict(talk(59.5, step_s=0.5) + talk(200.0, start_s=70.0), 205.0, last_speech=199.0)
    # starts 0, 0.5, ..., 59.0: 119 of them inside [0, 60)
    assert v["repeat_timeline"]["max_segments_in_60_s"] == 119
    assert v["verdict"] == "failed_repetition_or_timeline"


def test_speaker_label_reset_is_a_structural_anomaly_and_never_decides_the_verdict() -> None:
    raw = (talk(300.0, speakers=("S01", "S02")) + talk(600.0, start_s=300.0,
                                                      speakers=("S03", "S04"))
           + talk(900.0, start_s=600.0, speakers=("S03", "S04")))
    v = verdict(raw, 900.0, last_speech=899.0)
    thirds = v["speaker_continuity"]["thirds"]
    assert [t["label_reset"] for t in thirds] == [False, True, False]
    assert [t["new_labels"] for t in thirds] == [["S01", "S02"], ["S03", "S04"], []]
    assert v["speaker_continuity_status"] == "structural_anomaly"
    assert v["verdict"] == "engineering_complete"


def test_a_host_handing_over_to_a_guest_is_no_anomaly() -> None:
    """S01 alone in the first third, S02 alone after it: one speaker stops and another
    starts. Unfixed, the middle third's labels were disjoint from the early third's, so
    it was a label reset and a structural_anomaly."""
    raw = talk(300.0, speakers=("S01",)) + talk(900.0, start_s=300.0, speakers=("S02",))
    v = verdict(raw, 900.0, last_speech=899.0)
    thirds = v["speaker_continuity"]["thirds"]
    assert [t["speakers"] for t in thirds] == [["S01"], ["S02"], ["S02"]]
    assert [t["label_reset"] for t in thirds] == [False, False, False]
    assert v["speaker_continuity_status"] == "no_structural_anomaly"


def test_legality_has_its_own_tolerance() -> None:
    """A timestamp 1.5 s past the end of a 60 s file is illegal (legality tolerance 0.2 s);
    unfixed, the 2 s coverage tolerance was reused and it was legal. 60.2 is still legal."""
    ok = verdict(talk(50.0) + "[50.00][S01]the last words[60.20]", 60.0, last_speech=59.0)
    assert ok["repeat_timeline"]["illegal_timestamps"] == 0
    assert ok["transcript_coverage"]["last_valid_timestamp_s"] == 60.2
    v = verdict(talk(50.0) + "[50.00][S01]the last words[61.50]", 60.0, last_speech=59.0)
    assert v["repeat_timeline"]["illegal_examples"] == [61.5]
    assert v["transcript_coverage"]["last_valid_timestamp_s"] == 50.0  # 61.5 is not valid
    # the cover fails too (50 < 59 - 2), which names the failure first
    assert v["verdict"] == "failed_truncated"
    assert RULES.identity()["legal_tolerance_s"] == 0.2


def test_a_long_silent_speaker_coming_back_is_a_re_entry() -> None:
    # S01 talks 0-100, S02 alone 100-800, S01 returns at 800: a gap of 800 - 99.5 >= 600
    raw = (talk(100.0, speakers=("S01",)) + talk(800.0, start_s=100.0, speakers=("S02",))
           + talk(900.0, start_s=800.0, speakers=("S01",)))
    v = verdict(raw, 900.0, last_speech=899.0)
    assert [t["re_entries"] for t in v["speaker_continuity"]["thirds"]] == [0, 0, 1]
    assert v["speaker_continuity_status"] == "no_structural_anomaly"


def test_without_labels_speaker_continuity_is_unsupported() -> None:
    v = verdict("[0.00]hello[1.00][1.50]bye[2.00]", 3.0, last_speech=2.0)
    assert v["speaker_continuity_status"] == "unsupported"
    assert v["verdict"] == "engineering_complete"


def test_a_hindi_phrase_said_three_times_is_six_whole_word_tokens() -> None:
    """Under ``gate-rules-2`` a combining mark stays with its letter: "हिन्दी भाषा" is 2
    tokens, so three times over is 6 tokens and no block of 12 can repeat. Under
    ``gate-rules-1`` each vowel sign and virama split the words (10 pieces a phrase, 30 in
    all), and the 12-token window found a repeat. The rules written into the verdict say
    which tokens were counted."""
    raw = talk(100.0) + "[100.00][S01]" + "हिन्दी भाषा " * 3 + "[104.00]"
    v = verdict(raw, 105.0, last_speech=104.0)
    repeats = v["repeat_timeline"]["repeats"]
    talk_tokens = verdict(talk(100.0), 105.0, last_speech=104.0)["repeat_timeline"][
        "repeats"]["tokens"]
    assert repeats["tokens"] - talk_tokens == 6
    assert repeats["12"]["regions"] == 0
    rules = GateRules().identity()  # what every verdict record carries under "rules"
    assert rules["version"] == "gate-rules-3"  # the tokens of gate-rules-2, kept
    assert "combining marks with the character before them" in rules["repeat_tokens"]
