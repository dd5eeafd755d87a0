"""Session metrics exactly at the spec's boundaries (voice-agent-session-metrics).

The spec fixes: a reply "starts after the user's onset and no later than
response_timeout_ms after the user's offset"; a barge-in "passes when the stop time is at
most max_stop_ms"; a false barge-in is a stop "within max_stop_ms"; the segment "playing
at the user's onset"; TTFA counts packets "above -70 dBFS". Tracks are 10 ms-aligned
square waves (see test_metrics), so detected segments are exactly the spans written here
and every boundary below is hit to the microsecond, then missed by one 10 ms frame.
"""

from __future__ import annotations

from pathlib import Path

from speecheval.session.metrics.analyze import analyze

from .test_metrics import packets, record, scenario, turn

TIMEOUT_700 = "  - {id: t0, audio: {synth: tone}, response_timeout_ms: 700}\n"


def test_reply_exactly_at_the_response_timeout_is_accepted(tmp_path: Path) -> None:
    # user 0.5-1.5 s, response_timeout_ms 700: the last accepted reply start is
    # 1.5 + 0.7 = 2.2 s. A reply starting at 2.2 s is a response, latency 700 ms.
    events = [turn(0, 0.5, 1.5)] + packets(2.2, 3.0)
    (t,) = analyze(record([(0.5, 1.5)], [(2.2, 3.0)], events),
                   scenario(tmp_path, TIMEOUT_700)).turns
    assert (t.responded, t.response_latency_ms, t.passed) == (True, 700.0, True)
    assert t.ttfa_ms == 700.0 and t.talk_over is False


def test_reply_one_frame_after_the_response_timeout_is_missed(tmp_path: Path) -> None:
    # a reply at 2.21 s starts 710 ms after the offset, 10 ms past the limit
    events = [turn(0, 0.5, 1.5)] + packets(2.21, 3.0)
    (t,) = analyze(record([(0.5, 1.5)], [(2.21, 3.0)], events),
                   scenario(tmp_path, TIMEOUT_700)).turns
    assert (t.responded, t.response_latency_ms, t.passed) == (False, None, False)
    assert t.notes[0] == ("no agent speech started within 700 ms of the end of the user's "
                          "speech")


def test_agent_speech_starting_exactly_at_the_user_onset_is_not_a_reply(
        tmp_path: Path) -> None:
    # the reply must start after the onset (0.5 s): a segment 0.5-2.0 s does not, so the
    # respond turn has no reply; one starting 10 ms later (0.51 s) is a talk-over reply
    # with latency 0.51 - 1.5 = -990 ms.
    body = "  - {id: t0, audio: {synth: tone}}\n"
    (at,) = analyze(record([(0.5, 1.5)], [(0.5, 2.0)], [turn(0, 0.5, 1.5)]),
                    scenario(tmp_path, body)).turns
    assert (at.responded, at.response_latency_ms, at.passed) == (False, None, False)
    (after,) = analyze(record([(0.5, 1.5)], [(0.51, 2.0)], [turn(0, 0.5, 1.5)]),
                       scenario(tmp_path, body)).turns
    assert (after.responded, after.response_latency_ms, after.talk_over) == (True, -990.0, True)


STOP_400 = "  - {id: b, audio: {synth: tone}, expect: stop, max_stop_ms: 400}\n"


def test_barge_in_stopping_exactly_at_max_stop_ms_passes(tmp_path: Path) -> None:
    # agent 0.0-1.4 s, user interrupts at 1.0 s: stop 1.4 - 1.0 = 400 ms = max_stop_ms
    (t,) = analyze(record([(1.0, 1.6)], [(0.0, 1.4)], [turn(0, 1.0, 1.6, "b")]),
                   scenario(tmp_path, STOP_400)).turns
    assert (t.stop_ms, t.stopped, t.passed) == (400.0, True, True)
    # 10 ms later (1.41 s): 410 ms > 400 ms fails
    (late,) = analyze(record([(1.0, 1.6)], [(0.0, 1.41)], [turn(0, 1.0, 1.6, "b")]),
                      scenario(tmp_path, STOP_400)).turns
    assert (late.stop_ms, late.stopped, late.passed) == (410.0, False, False)


def test_agent_segment_ending_exactly_at_the_onset_was_not_playing(tmp_path: Path) -> None:
    # agent 0.0-1.0 s, user onset 1.0 s: the segment is [0, 1.0), so nothing plays at 1.0
    (t,) = analyze(record([(1.0, 1.6)], [(0.0, 1.0)], [turn(0, 1.0, 1.6, "b")]),
                   scenario(tmp_path, STOP_400)).turns
    assert (t.stop_ms, t.stopped, t.passed) == (None, None, False)
    assert "not talking at the user's onset" in t.notes[0]
    # agent starting exactly at the onset (1.0-1.3 s) is playing at it: stop 300 ms
    (s,) = analyze(record([(1.0, 1.6)], [(1.0, 1.3)], [turn(0, 1.0, 1.6, "b")]),
                   scenario(tmp_path, STOP_400)).turns
    assert (s.stop_ms, s.stopped, s.passed) == (300.0, True, True)


def test_clear_exactly_at_the_onset_counts_and_one_at_the_next_turn_does_not(
        tmp_path: Path) -> None:
    # clears are taken from the onset (1.0 s, inclusive) to the next turn start (2.0 s,
    # exclusive): a clear at 1.0 s gives clear_stop_ms 0; one only at 2.0 s gives none.
    body = STOP_400 + "  - {id: c, audio: {synth: tone}}\n"
    base = [turn(0, 1.0, 1.6, "b"), turn(1, 2.0, 2.5, "c")]
    user, agent = [(1.0, 1.6), (2.0, 2.5)], [(0.0, 1.3)]
    at_onset = base + [{"type": "clear", "t_ms": 1000.0, "dropped_ms": 300.0}]
    b, _ = analyze(record(user, agent, at_onset), scenario(tmp_path, body)).turns
    assert b.clear_stop_ms == 0.0
    at_next = base + [{"type": "clear", "t_ms": 2000.0, "dropped_ms": 300.0}]
    b, _ = analyze(record(user, agent, at_next), scenario(tmp_path, body)).turns
    assert b.clear_stop_ms is None


NOISE_500 = "  - {id: n, audio: {synth: noise}, expect: ignore, max_stop_ms: 500}\n"


def test_false_barge_in_exactly_at_max_stop_ms(tmp_path: Path) -> None:
    # noise at 1.0 s; the agent stops at 1.5 s: 500 ms = max_stop_ms -> false barge-in
    (t,) = analyze(record([(1.0, 1.2)], [(0.0, 1.5)], [turn(0, 1.0, 1.2, "n")]),
                   scenario(tmp_path, NOISE_500)).turns
    assert (t.false_barge_in, t.spurious_response, t.passed) == (True, False, False)
    assert t.notes[0].startswith("the agent stopped 500 ms after non-speech input")
    # stopping at 1.51 s (510 ms) is no longer "within" max_stop_ms
    (kept,) = analyze(record([(1.0, 1.2)], [(0.0, 1.51)], [turn(0, 1.0, 1.2, "n")]),
                      scenario(tmp_path, NOISE_500)).turns
    assert (kept.false_barge_in, kept.passed) == (False, True)


def test_spurious_response_exactly_at_the_response_timeout(tmp_path: Path) -> None:
    # a silent agent starts 1.2 + 0.7 = 1.9 s after a noise that ends at 1.2 s: within the
    # 700 ms timeout (inclusive), so spurious; at 1.91 s it is outside and does not count
    body = ("  - {id: n, audio: {synth: noise}, expect: ignore, max_stop_ms: 500, "
            "response_timeout_ms: 700}\n")
    (t,) = analyze(record([(1.0, 1.2)], [(1.9, 2.5)], [turn(0, 1.0, 1.2, "n")]),
                   scenario(tmp_path, body)).turns
    assert (t.false_barge_in, t.spurious_response, t.passed) == (False, True, False)
    (late,) = analyze(record([(1.0, 1.2)], [(1.91, 2.5)], [turn(0, 1.0, 1.2, "n")]),
                      scenario(tmp_path, body)).turns
    assert (late.spurious_response, late.passed) == (False, True)


def test_ttfa_packet_exactly_at_the_floor_is_not_audio(tmp_path: Path) -> None:
    # TTFA counts packets above -70 dBFS: the packet at 1.6 s is exactly -70.0 (not
    # above), the one at 1.8 s is -69.9: TTFA = 1.8 - 1.5 = 300 ms.
    body = "  - {id: t0, audio: {synth: tone}}\n"
    events = ([turn(0, 0.5, 1.5)] + packets(1.6, 1.62, -70.0) + packets(1.8, 1.82, -69.9)
              + packets(2.0, 3.0))
    (t,) = analyze(record([(0.5, 1.5)], [(2.0, 3.0)], events), scenario(tmp_path, body)).turns
    assert (t.response_latency_ms, t.ttfa_ms) == (500.0, 300.0)
    # with the -69.9 packet at the floor too, the first audio is the reply's own 2.0 s
    events = ([turn(0, 0.5, 1.5)] + packets(1.6, 1.62, -70.0) + packets(1.8, 1.82, -70.0)
              + packets(2.0, 3.0))
    (t,) = analyze(record([(0.5, 1.5)], [(2.0, 3.0)], events), scenario(tmp_path, body)).turns
    assert t.ttfa_ms == 500.0
