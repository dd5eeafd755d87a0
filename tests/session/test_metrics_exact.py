"""Session metrics details: the missed-reply note at its edges, and the report fields."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from speecheval.session.metrics import analyze

from .test_metrics import RESPOND, packets, record, scenario, turn


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
    report = result.to_dict()
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
                    scenario(tmp_path, RESPOND)).to_dict()["send_lateness_ms"]
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
