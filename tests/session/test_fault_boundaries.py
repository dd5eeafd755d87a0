"""Which turn an agent fault explains, exactly at the edges of the turn's window.

A fault belongs to a turn when it is logged inside ``[start, end + 1 ms]`` of the turn's
window (1 ms of slack between the log's clock and the tracks). Tracks are 10 ms-aligned
square waves (see test_metrics), so the detected speech is exactly the spans written here.
"""

from __future__ import annotations

from pathlib import Path

from speecheval.session.metrics.analyze import FAULT_DURING_TURN, analyze

from .test_metrics import DROPPED, faulted, record, scenario, turn

TWO = "  - {id: a, audio: {synth: tone}}\n  - {id: b, audio: {synth: tone}}\n"
ONE = "  - {id: a, audio: {synth: tone}}\n"


def test_a_fault_exactly_at_a_window_start_belongs_to_that_turn(tmp_path: Path) -> None:
    # a: user 0.5-1.0 s; b starts at 1.8 s, where the agent fails and the recording ends.
    # b's window is [1.8, 1.8]: no user speech in it, and the fault at its start explains
    # it (start <= fault).
    events = [turn(0, 0.5, 1.0, "a"), turn(1, 1.8, 2.3, "b")]
    recording = faulted(record([(0.5, 1.0)], [], events, duration=1.8), DROPPED, 1.8)
    _, b = analyze(recording, scenario(tmp_path, TWO)).turns
    assert b.notes == ("no user speech detected in the turn's window; check vad.user",
                       f"{FAULT_DURING_TURN}: {DROPPED}")


def test_a_fault_exactly_at_the_slack_after_a_window_end_belongs_to_it(tmp_path: Path) -> None:
    # a's window is [0.5, 1.8) (b starts at 1.8 s); the fault is logged at 1.801 s, the
    # window end plus the 1 ms slack, so it still explains a: a's reply was cut off.
    # a waited 1.8 - 1.0 = 800 ms before b started.
    events = [turn(0, 0.5, 1.0, "a"), turn(1, 1.8, 2.3, "b")]
    recording = faulted(record([(0.5, 1.0)], [], events, duration=1.801), DROPPED, 1.801)
    a, _ = analyze(recording, scenario(tmp_path, TWO)).turns
    assert a.notes == ("no agent speech before the next turn started 800 ms after the end "
                       "of the user's speech, before response_timeout_ms 5000 passed",
                       f"{FAULT_DURING_TURN}: {DROPPED}")


def test_a_passed_turn_gets_no_fault_note(tmp_path: Path) -> None:
    # a: user 0.5-1.0 s, the agent replies 1.2-1.5 s (latency 200 ms), then fails at 1.6 s
    # inside a's window: the turn passed, so the fault explains nothing about it.
    recording = faulted(record([(0.5, 1.0)], [(1.2, 1.5)], [turn(0, 0.5, 1.0, "a")],
                               duration=1.6), DROPPED, 1.6)
    (a,) = analyze(recording, scenario(tmp_path, ONE)).turns
    assert (a.passed, a.response_latency_ms, a.notes) == (True, 200.0, ())


def test_a_fault_exactly_when_the_users_audio_ends_did_not_cut_the_user_off(
        tmp_path: Path) -> None:
    # The turn's audio and the user's speech end at 1.5 s, where the agent fails and the
    # recording ends: the user had finished (audio end 1.5 is not past the 1.5 s end), so
    # the note gives the wait, 1.5 - 1.5 = 0 ms.
    recording = faulted(record([(0.5, 1.5)], [], [turn(0, 0.5, 1.5, "a")], duration=1.5),
                        DROPPED, 1.5)
    (a,) = analyze(recording, scenario(tmp_path, ONE)).turns
    assert a.notes == (f"{FAULT_DURING_TURN}, 0 ms after the end of the user's speech, before "
                       f"response_timeout_ms 5000 passed: {DROPPED}",)
