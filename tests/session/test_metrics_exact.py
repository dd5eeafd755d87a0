"""Session metrics details: the missed-reply note at its edges, and the report fields."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from speecheval.core.audio import Audio, read_mono
from speecheval.core.errors import InputError
from speecheval.core.timeline import Spans
from speecheval.session.metrics.analyze import analyze, track_speech
from speecheval.session.record.events import events_from_dicts
from speecheval.session.record.recording import SessionRecording
from speecheval.session.scenario import detectors
from speecheval.session.scenario.model import TrackVad
from speecheval.vad.silero import SileroSettings, SileroVad

from .test_metrics import RESPOND, packets, record, scenario, turn

VAD_DATA = Path(__file__).resolve().parents[1] / "data" / "vad"


def test_window_closing_just_before_the_timeout_is_not_the_timeout(tmp_path: Path) -> None:
    # user 0.5-1.5 s; the recording ends 4.996 s after the offset (6.496 s, 103936 samples),
    # 4 ms before the 5000 ms timeout: the note says the session ended, not that the
    # timeout passed
    (t,) = analyze(record([(0.5, 1.5)], [], [turn(0, 0.5, 1.5)], duration=6.496),
                   scenario(tmp_path, RESPOND)).turns
    assert t.notes[0] == ("no agent speech before the session ended 4996 ms after the end of "
                          "the user's speech, before response_timeout_ms 5000 passed")
    # ending exactly 5000 ms after the offset, the whole timeout has passed
    (t,) = analyze(record([(0.5, 1.5)], [], [turn(0, 0.5, 1.5)], duration=6.5),
                   scenario(tmp_path, RESPOND)).turns
    assert t.notes[0] == ("no agent speech started within 5000 ms of the end of the user's "
                          "speech")


def test_user_speech_running_into_the_next_turn_waited_zero_ms(tmp_path: Path) -> None:
    # turn a's window is [0.5, 1.0); the user's speech runs 0.5-1.5 s, past the start of
    # turn b at 1.0 s, so a's window closed before the offset: it waited 0 ms (never less)
    body = "  - {id: a, audio: {synth: tone}}\n  - {id: b, audio: {synth: tone}}\n"
    events = [turn(0, 0.5, 1.0, "a"), turn(1, 1.0, 1.5, "b")]
    a, _ = analyze(record([(0.5, 1.5)], [], events), scenario(tmp_path, body)).turns
    assert a.notes == ("no agent speech before the next turn started 0 ms after the end of "
                       "the user's speech, before response_timeout_ms 5000 passed",)


def test_report_fields_of_a_session_and_a_turn(tmp_path: Path) -> None:
    # send lateness 1, 2, 3, 10 ms: p50 2.5, p99 9.79 (linear: 3 + 0.97 * 7), max 10
    # user 0.5-1.5 s, agent 1.2-1.9 s: 300 ms overlap, all of it talk-over (respond turn)
    recording = replace(record([(0.5, 1.5)], [(1.2, 1.9)], [turn(0, 0.5, 1.5)], duration=2.5),
                        send_lateness_ms=[1.0, 2.0, 3.0, 10.0], fault="agent closed")
    result = analyze(recording, scenario(tmp_path, RESPOND))
    report = result.report_dict()
    assert report["send_lateness_ms"]["p50"] == 2.5 and report["send_lateness_ms"]["max"] == 10
    assert abs(report["send_lateness_ms"]["p99"] - 9.79) < 1e-9
    assert report["user_segments"] == [[0.5, 1.5]] and report["agent_segments"] == [[1.2, 1.9]]
    assert {key: report[key] for key in ("duration_s", "user_speech_ms", "agent_speech_ms",
                                         "overlap_ms", "talk_over_ms", "truncated",
                                         "fault")} == {
        "duration_s": 2.5, "user_speech_ms": 1000.0, "agent_speech_ms": 700.0,
        "overlap_ms": 300.0, "talk_over_ms": 300.0, "truncated": False,
        "fault": "agent closed"}
    (turn_dict,) = report["turns"]
    assert turn_dict["notes"] == list(result.turns[0].notes) and turn_dict["id"] == "t0"
    empty = analyze(record([(0.5, 1.5)], [], [turn(0, 0.5, 1.5)], duration=2.5),
                    scenario(tmp_path, RESPOND)).report_dict()["send_lateness_ms"]
    assert empty == {"p50": None, "p99": None, "max": None}


NOISE = "  - {id: n, audio: {synth: noise}, expect: ignore, max_stop_ms: 500}\n"
STOP = "  - {id: b, audio: {synth: tone}, expect: stop, max_stop_ms: 400}\n"


def test_notes_say_exactly_what_happened(tmp_path: Path) -> None:
    # noise at 1.0-1.2 s while the agent talks 0.0-1.3 s: it stopped 300 ms after
    (n,) = analyze(record([(1.0, 1.2)], [(0.0, 1.3)], [turn(0, 1.0, 1.2, "n")]),
                   scenario(tmp_path, NOISE)).turns
    assert n.notes == ("the agent stopped 300 ms after non-speech input: a false barge-in "
                       "(a reply ending naturally this close looks the same)",)
    # a silent agent that starts at 1.6 s, 400 ms after the noise ended
    (n,) = analyze(record([(1.0, 1.2)], [(1.6, 2.5)], [turn(0, 1.0, 1.2, "n")]),
                   scenario(tmp_path, NOISE)).turns
    assert n.notes == ("the agent started talking in response to non-speech input",)
    # a silent agent that stays silent: no note at all
    (n,) = analyze(record([(1.0, 1.2)], [], [turn(0, 1.0, 1.2, "n")]),
                   scenario(tmp_path, NOISE)).turns
    assert n.notes == () and n.passed
    # talk-over: the reply starts at 1.2 s, before the user's offset at 1.5 s
    (t,) = analyze(record([(0.5, 1.5)], [(1.2, 2.5)], [turn(0, 0.5, 1.5)]),
                   scenario(tmp_path, RESPOND)).turns
    assert t.notes[0] == ("the agent started talking before the user finished (talk-over); "
                          "time to first audio is not reported")
    # a barge-in turn while the agent is silent
    (b,) = analyze(record([(1.0, 1.6)], [], [turn(0, 1.0, 1.6, "b")]),
                   scenario(tmp_path, STOP)).turns
    assert b.notes[0] == ("the agent was not talking at the user's onset, so the scenario "
                          "timing did not create a barge-in")


def test_reply_starting_exactly_at_the_offset_is_not_talk_over(tmp_path: Path) -> None:
    # user 0.5-1.5 s, reply from 1.5 s: latency 0, not talk-over, TTFA reported (0 ms)
    events = [turn(0, 0.5, 1.5)] + packets(1.5, 2.5)
    (t,) = analyze(record([(0.5, 1.5)], [(1.5, 2.5)], events),
                   scenario(tmp_path, RESPOND)).turns
    assert (t.response_latency_ms, t.talk_over, t.ttfa_ms) == (0.0, False, 0.0)


def transcript(t_ms: float, text: str) -> dict[str, object]:
    return {"type": "transcript", "t_ms": t_ms, "role": "user", "text": text, "final": True}


def test_transcripts_are_taken_from_the_turn_start_up_to_the_next_turn(tmp_path: Path) -> None:
    # windows [0.5, 2.0) and [2.0, 4.0): a transcript at exactly 0.5 s belongs to a, one at
    # exactly 2.0 s to b, not to a
    body = "  - {id: a, audio: {synth: tone}}\n  - {id: b, audio: {synth: tone}}\n"
    events = [turn(0, 0.5, 1.0, "a"), turn(1, 2.0, 2.5, "b"), transcript(500.0, "first"),
              transcript(2000.0, "second")]
    a, b = analyze(record([(0.5, 1.0), (2.0, 2.5)], [], events), scenario(tmp_path, body)).turns
    assert (a.transcript, b.transcript) == ("first", "second")


def test_speech_ending_exactly_at_the_turn_start_is_not_the_turns(tmp_path: Path) -> None:
    # user speech 0.2-0.5 s ends where the turn's window starts (0.5 s); the turn's own
    # speech is 0.8-1.2 s: onset 0.8, not 0.2
    (t,) = analyze(record([(0.2, 0.5), (0.8, 1.2)], [], [turn(0, 0.5, 1.2)]),
                   scenario(tmp_path, RESPOND)).turns
    assert (t.user_onset_s, t.user_offset_s, t.audio_end_s, t.start_s) == (0.8, 1.2, 1.2, 0.5)


def test_turn_without_user_speech_fails_with_its_note(tmp_path: Path) -> None:
    (t,) = analyze(record([], [], [turn(0, 0.5, 1.5)]), scenario(tmp_path, RESPOND)).turns
    assert t.passed is False
    assert t.notes[0] == "no user speech detected in the turn's window; check vad.user"


def test_turn_started_by_its_timeout_says_so(tmp_path: Path) -> None:
    body = ("  - {id: a, audio: {synth: tone}, start: {after: agent_speech_start, "
            "timeout_ms: 800}}\n")
    event = {**turn(0, 0.8, 1.3, "a"), "trigger": "timeout"}
    (t,) = analyze(record([(0.8, 1.3)], [], [event]), scenario(tmp_path, body)).turns
    assert t.trigger == "timeout"
    assert t.notes[0] == ("start anchor 'agent_speech_start' never happened; the turn started "
                          "after its 800 ms timeout")


def test_talk_over_time_adds_up_over_respond_turns(tmp_path: Path) -> None:
    # two respond turns, each talked over: a [0.5, 1.5) by the agent's 1.2-1.8 (300 ms of
    # overlap with the user), b [2.0, 3.0) by 2.9-3.5 (100 ms): 400 ms in all
    body = "  - {id: a, audio: {synth: tone}}\n  - {id: b, audio: {synth: tone}}\n"
    events = [turn(0, 0.5, 1.5, "a"), turn(1, 2.0, 3.0, "b")]
    result = analyze(record([(0.5, 1.5), (2.0, 3.0)], [(1.2, 1.8), (2.9, 3.5)], events,
                            duration=4.0), scenario(tmp_path, body))
    assert result.talk_over_ms == 400.0 and result.overlap_ms == 400.0


def test_turns_that_never_played_say_why(tmp_path: Path) -> None:
    body = "  - {id: a, audio: {synth: tone}}\n  - {id: b, audio: {synth: tone}}\n"
    rec = record([(0.5, 1.0)], [], [turn(0, 0.5, 1.0, "a")], duration=2.0)
    _, b = analyze(rec, scenario(tmp_path, body)).turns
    assert b.notes == ("turn never played: the session ended first (no reason logged)",)
    _, b = analyze(replace(rec, fault="agent closed the socket"), scenario(tmp_path, body)).turns
    assert b.notes == ("turn never played: the session ended first (agent closed the socket)",)
    truncated = replace(rec, events=rec.events + events_from_dicts(
        [{"type": "truncated", "t_ms": 2000.0}]))
    _, b = analyze(truncated, scenario(tmp_path, body)).turns
    assert b.notes == ("turn never played: the session hit max_duration_ms first",)


def test_overlap_of_nothing_is_zero() -> None:
    assert Spans.empty().overlap_us(Spans([0], [5])) == 0
    assert Spans([0], [5]).overlap_us(Spans.empty()) == 0
    assert Spans([0], [5]).overlap_us(Spans([5], [9])) == 0   # touching spans share no time


def test_rate_mismatch_names_the_scenario(tmp_path: Path) -> None:
    sc = scenario(tmp_path, RESPOND)
    wrong = SessionRecording(sample_rate=8000, user=np.zeros(8000, np.int16),
                             agent=np.zeros(8000, np.int16))
    with pytest.raises(InputError) as info:
        analyze(wrong, sc)
    assert str(info.value) == (f"{sc.path}: recording rate 8000 Hz does not match the "
                               "scenario's 16000 Hz")


def test_silero_track_segments_follow_the_placed_speech() -> None:
    # 0.5 s of silence, sentence a (committed 16 kHz espeak-ng recording), 0.7 s of silence.
    # Expected independently: Silero's own segments of the same audio as float samples in
    # [-1, 1), in whole microseconds, starting near 0.5 s and ending near the sentence end;
    # nothing runs to the end of the track.
    speech = read_mono(VAD_DATA / "speech_a.wav").samples
    silent = np.zeros(8000, np.float32)
    track = np.concatenate([silent, speech, np.zeros(11200, np.float32)])
    pcm = np.round(track * 32767).astype(np.int16)
    found = track_speech(pcm, 16000, TrackVad(engine="silero"))
    expected = [(round(s.start_s * 1e6), round(s.end_s * 1e6)) for s in
                SileroVad(SileroSettings()).segments(Audio(pcm / 32768.0, 16000))]
    assert found.to_tuples() == expected and not found.open_at_end.any()
    assert abs(int(found.starts[0]) - 500_000) <= 100_000
    end_of_speech = round((8000 + speech.size) / 16000 * 1e6)
    assert abs(int(found.ends[-1]) - end_of_speech) <= 150_000
    # sentences a, b, a with 1 s pauses, the last one running to the last sample: Silero
    # finds 4 segments in it; the last reaches the end and is the one still
    # running, not the second
    other = read_mono(VAD_DATA / "speech_b.wav").samples
    pause = np.zeros(16000, np.float32)
    cut = np.round(np.concatenate([silent, speech, pause, other, pause, speech]) * 32767
                   ).astype(np.int16)
    running = track_speech(cut, 16000, TrackVad(engine="silero"))
    assert running.open_at_end.tolist() == [False, False, False, True]
    assert int(running.ends[-1]) == round(cut.size / 16000 * 1e6)


def test_silero_track_unavailable_is_an_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # an installation without the Silero module: a one-line input error naming the engine
    # (the loaded detector is cached per process: forget it before and after)
    monkeypatch.setitem(sys.modules, "speecheval.vad.silero", None)
    detectors._silero.cache_clear()
    try:
        with pytest.raises(InputError, match=r"^vad engine 'silero' is not available in "
                                             r"this installation \(.+\)$"):
            track_speech(np.zeros(1600, np.int16), 16000, TrackVad(engine="silero"))
    finally:
        detectors._silero.cache_clear()
