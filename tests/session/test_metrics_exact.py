"""Session metrics details: the missed-reply note at its edges, and the report fields."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from speecheval.session.metrics import analyze

from .test_metrics import RESPOND, record, scenario, turn


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
    recording = replace(record([(0.5, 1.5)], [], [turn(0, 0.5, 1.5)], duration=2.0),
                        send_lateness_ms=[1.0, 2.0, 3.0, 10.0])
    result = analyze(recording, scenario(tmp_path, RESPOND))
    report = result.to_dict()
    assert report["send_lateness_ms"]["p50"] == 2.5 and report["send_lateness_ms"]["max"] == 10
    assert abs(report["send_lateness_ms"]["p99"] - 9.79) < 1e-9
    assert report["user_segments"] == [[0.5, 1.5]] and report["agent_segments"] == []
    (turn_dict,) = report["turns"]
    assert turn_dict["notes"] == list(result.turns[0].notes) and turn_dict["id"] == "t0"
    empty = analyze(record([(0.5, 1.5)], [], [turn(0, 0.5, 1.5)], duration=2.0),
                    scenario(tmp_path, RESPOND)).to_dict()["send_lateness_ms"]
    assert empty == {"p50": None, "p99": None, "max": None}
