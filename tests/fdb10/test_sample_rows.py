"""The task's part of a ``unified-samples.jsonl`` row, key by key, for each task's sample:
every key named as the spec names it and every time converted from microseconds to
seconds. The end-to-end tests read these rows from files; here each value is distinct,
so a swapped, renamed or dropped field shows."""

from __future__ import annotations

from speecheval.core.timeline import Span
from speecheval.fdb.v10.scoring.interruption import InterruptionSample
from speecheval.fdb.v10.scoring.pause import PauseSample
from speecheval.fdb.v10.scoring.turn_taking import TurnTakingSample


def test_pause_row() -> None:
    sample = PauseSample(
        pause_intrusion=True, inside_pause_onset=False, pre_pause_speech=True,
        carry_in=False, any_speech=True, intrusion_words=3, pauses=2, intruded_pauses=1,
        pause_us=1_500_000, intrusion_us=250_000, first_pause_start_us=4_000_000, words=7)
    # 1_500_000 us = 1.5 s, 250_000 us = 0.25 s, 4_000_000 us = 4.0 s
    assert sample.report_dict() == {
        "pause_intrusion": True, "inside_pause_onset": False, "pre_pause_speech": True,
        "carry_in": False, "any_speech": True, "intrusion_words": 3, "pauses": 2,
        "intruded_pauses": 1, "pause_s": 1.5, "intrusion_s": 0.25,
        "first_pause_start_s": 4.0, "words": 7}


def test_turn_taking_rows() -> None:
    # E = 3.2 s, first word at 3.45 s: latency 0.25 s, observed for T - E = 6.8 s
    response = TurnTakingSample("response", 3_200_000, 3_450_000, 250_000, 6_800_000)
    assert response.report_dict() == {"outcome": "response", "E": 3.2, "first_word_s": 3.45,
                              "latency_s": 0.25, "observable_s": 6.8}
    silent = TurnTakingSample("no_response", 3_200_000, None, None, 6_800_000)
    assert silent.report_dict() == {"outcome": "no_response", "E": 3.2, "first_word_s": None,
                            "latency_s": None, "observable_s": 6.8}


def test_interruption_rows() -> None:
    # S = 5 s, R = 7 s; the segment covering S ends at 5.75 s: stop 0.75 s; 1.25 s of
    # speech inside [S, R); first word at 7.5 s: latency 0.5 s
    sample = InterruptionSample(
        outcome="response", onset_us=5_000_000, end_us=7_000_000, speech_at_onset=True,
        speech_at_end=False, speech_before_onset=True, stop_us=750_000, stop_observed=True,
        speech_in_interruption_us=1_250_000, restarts=2, first_word_us=7_500_000,
        latency_us=500_000, observable_us=13_000_000,
        segments=(Span(4_000_000, 5_750_000), Span(6_000_000, 6_500_000)))
    assert sample.report_dict() == {
        "outcome": "response", "S": 5.0, "R": 7.0, "speech_at_onset": True,
        "speech_at_end": False, "speech_before_onset": True, "stop_s": 0.75,
        "stop_observed": True, "speech_in_interruption_s": 1.25, "restarts": 2,
        "first_word_s": 7.5, "latency_s": 0.5,
        "segments": [[4.0, 5.75], [6.0, 6.5]]}
    running = InterruptionSample(
        outcome="speaking_at_end", onset_us=5_000_000, end_us=7_000_000,
        speech_at_onset=True, speech_at_end=True, speech_before_onset=False, stop_us=None,
        stop_observed=False, speech_in_interruption_us=2_000_000, restarts=0,
        first_word_us=None, latency_us=None, observable_us=13_000_000,
        segments=(Span(4_000_000, 20_000_000),))
    row = running.report_dict()
    assert (row["stop_s"], row["stop_observed"], row["first_word_s"], row["latency_s"]) == (
        None, False, None, None)
    assert row["segments"] == [[4.0, 20.0]] and row["speech_in_interruption_s"] == 2.0
