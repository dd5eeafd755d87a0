"""Turn and session metrics on hand-built recordings whose answers are worked out by hand.

Speech is a -20 dBFS square wave between 10 ms frame boundaries, so the detector's
segments are exactly the spans written here; every expected value below is plain
arithmetic on those spans.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from speecheval.core.errors import InputError
from speecheval.core.timeline import Span
from speecheval.session.metrics.analyze import analyze
from speecheval.session.record.events import Fault, events_from_dicts
from speecheval.session.record.recording import SessionRecording
from speecheval.session.scenario.load import load_scenario
from speecheval.session.scenario.model import Scenario

from .helpers import write_scenario

RATE = 16000
LOUD = round(0.1 * 32768)  # -20 dBFS square wave


def tracks(spans: list[tuple[float, float]], duration: float) -> np.ndarray:
    out = np.zeros(round(duration * RATE), dtype=np.int16)
    for a, b in spans:
        lo, hi = round(a * RATE), round(b * RATE)
        out[lo:hi] = np.where(np.arange(hi - lo) % 2 == 0, LOUD, -LOUD)
    return out


def turn(index: int, start: float, end: float, turn_id: str | None = None) -> dict[str, Any]:
    return {"type": "turn", "t_ms": start * 1000, "end_ms": end * 1000,
            "turn": turn_id or f"t{index}", "index": index, "trigger": "session_start",
            "anchor_ms": 0.0}


def packets(start: float, end: float, level: float | None = -20.0) -> list[dict[str, Any]]:
    """One 20 ms agent packet event per frame in [start, end)."""
    return [{"type": "audio", "t_ms": round(t * 1000, 3), "samples": 320, "level_dbfs": level,
             "placed_ms": round(t * 1000, 3)}
            for t in np.arange(round(start * 50), round(end * 50)) / 50]


def record(user: list[tuple[float, float]], agent: list[tuple[float, float]],
           events: list[dict[str, Any]], duration: float = 4.0) -> SessionRecording:
    ordered = sorted(events, key=lambda e: e["t_ms"])
    return SessionRecording(sample_rate=RATE, user=tracks(user, duration),
                            agent=tracks(agent, duration), events=events_from_dicts(ordered))


def scenario(tmp_path: Path, turns: str, extra: str = "") -> Scenario:
    return load_scenario(write_scenario(tmp_path, f"name: hand\n{extra}turns:\n{turns}"))


RESPOND = "  - {id: t0, audio: {synth: tone}, text: 'book a table for two'}\n"


def test_response_latency_and_ttfa(tmp_path: Path) -> None:
    # user speaks 0.5-1.5 s; the agent answers 2.0-3.0 s: latency 2.0 - 1.5 = 500 ms.
    # Its first packets (1.8-2.0 s) are quiet (-60 dBFS, above the -70 floor, below the
    # VAD threshold), so the first audio arrives 300 ms after the offset; a -80 dBFS packet
    # at 1.6 s is below the floor and does not count.
    events = ([turn(0, 0.5, 1.5)] + packets(1.6, 1.62, -80.0) + packets(1.8, 2.0, -60.0)
              + packets(2.0, 3.0))
    result = analyze(record([(0.5, 1.5)], [(2.0, 3.0)], events), scenario(tmp_path, RESPOND))
    (t,) = result.turns
    assert (t.user_onset_s, t.user_offset_s) == (0.5, 1.5)
    assert t.response_latency_ms == 500.0 and t.ttfa_ms == 300.0
    assert t.responded and t.talk_over is False and t.passed
    assert t.wer is None and "no final user transcript" in t.notes[0]
    assert result.duration_s == 4.0
    assert (result.user_speech_ms, result.agent_speech_ms, result.overlap_ms) == (
        1000.0, 1000.0, 0.0)


def test_ttfa_excludes_packets_of_an_earlier_agent_segment(tmp_path: Path) -> None:
    # The agent was already talking (0.0-1.7 s) when the user spoke (0.5-1.5 s). Its reply
    # starts at 2.2 s. Packets up to 1.7 s belong to the earlier segment, so the first
    # packet of the reply is the one at 2.2 s: TTFA 700 ms (not 0 ms, the packet at 1.5 s).
    events = [turn(0, 0.5, 1.5)] + packets(0.0, 1.7) + packets(2.2, 3.0)
    result = analyze(record([(0.5, 1.5)], [(0.0, 1.7), (2.2, 3.0)], events),
                     scenario(tmp_path, RESPOND))
    (t,) = result.turns
    assert t.response_latency_ms == 700.0 and t.ttfa_ms == 700.0
    # overlap: the user's 0.5-1.5 s lies inside the agent's 0.0-1.7 s: 1000 ms, and it is
    # a respond turn, so all of it is talk-over time
    assert result.overlap_ms == 1000.0 and result.talk_over_ms == 1000.0


def test_talk_over_reply_has_negative_latency_and_no_ttfa(tmp_path: Path) -> None:
    # the agent starts at 1.2 s while the user speaks until 1.5 s: latency -300 ms
    events = [turn(0, 0.5, 1.5)] + packets(1.2, 2.5)
    result = analyze(record([(0.5, 1.5)], [(1.2, 2.5)], events), scenario(tmp_path, RESPOND))
    (t,) = result.turns
    assert t.response_latency_ms == -300.0 and t.talk_over is True and t.ttfa_ms is None
    assert result.talk_over_ms == 300.0 and result.overlap_ms == 300.0


def test_missed_response_after_the_timeout(tmp_path: Path) -> None:
    # response_timeout_ms 1000: the reply at 2.6 s is 1100 ms after the 1.5 s offset
    body = "  - {id: t0, audio: {synth: tone}, response_timeout_ms: 1000}\n"
    events = [turn(0, 0.5, 1.5)] + packets(2.6, 3.0)
    (t,) = analyze(record([(0.5, 1.5)], [(2.6, 3.0)], events), scenario(tmp_path, body)).turns
    assert t.responded is False and t.response_latency_ms is None and not t.passed
    assert "within 1000 ms" in t.notes[0]


def test_missed_response_note_says_when_the_window_closed_before_the_timeout(
        tmp_path: Path) -> None:
    # response_timeout_ms 5000 (the default), but the 2.0 s recording ended 2.0 - 1.5 =
    # 500 ms after the user's offset: the note must say so, not claim 5000 ms passed.
    (t,) = analyze(record([(0.5, 1.5)], [], [turn(0, 0.5, 1.5)], duration=2.0),
                   scenario(tmp_path, RESPOND)).turns
    assert t.responded is False and not t.passed
    assert t.notes[0] == ("no agent speech before the session ended 500 ms after the end "
                          "of the user's speech, before response_timeout_ms 5000 passed")
    # two turns: the first one's window closes when the second starts at 1.8 s, 1.8 - 1.0
    # = 800 ms after its offset
    body = "  - {id: a, audio: {synth: tone}}\n  - {id: b, audio: {synth: tone}}\n"
    events = [turn(0, 0.5, 1.0, "a"), turn(1, 1.8, 2.3, "b")]
    a, _ = analyze(record([(0.5, 1.0), (1.8, 2.3)], [], events), scenario(tmp_path, body)).turns
    assert a.notes == ("no agent speech before the next turn started 800 ms after the end "
                       "of the user's speech, before response_timeout_ms 5000 passed",)


DROPPED = "agent dropped the connection without a close frame"


def faulted(recording: SessionRecording, reason: str, t_s: float) -> SessionRecording:
    """``recording`` with the agent's fault logged at ``t_s`` (past its end: found at close)."""
    events = [*recording.events, Fault(t_ms=t_s * 1000, reason=reason)]
    return replace(recording, events=events, fault=reason)


def test_a_fault_that_cuts_the_user_off_says_so(tmp_path: Path) -> None:
    # the turn's audio runs 0.5-1.5 s, but the agent dropped the connection at 1.2 s and
    # the recording ends there: the user had not finished, so "0 ms after the end of the
    # user's speech" would be false
    body = "  - {id: t0, audio: {synth: tone}}\n"
    recording = faulted(record([(0.5, 1.2)], [], [turn(0, 0.5, 1.5)], duration=1.2),
                        DROPPED, 1.2)
    (t,) = analyze(recording, scenario(tmp_path, body)).turns
    assert t.notes == ("the session ended by an agent fault during the turn, while the user "
                       f"was still speaking: {DROPPED}",)
    # the fault came 1.8 - 1.5 = 300 ms after the user's offset, inside the 5000 ms timeout
    recording = faulted(record([(0.5, 1.5)], [], [turn(0, 0.5, 1.5)], duration=1.8),
                        DROPPED, 1.8)
    (t,) = analyze(recording, scenario(tmp_path, body)).turns
    assert t.notes == ("the session ended by an agent fault during the turn, 300 ms after the "
                       "end of the user's speech, before response_timeout_ms 5000 passed: "
                       f"{DROPPED}",)


def test_a_fault_only_explains_the_turn_it_cut(tmp_path: Path) -> None:
    # turn a missed its reply before b started at 1.8 s; the fault came at 2.5 s, in b
    body = "  - {id: a, audio: {synth: tone}}\n  - {id: b, audio: {synth: tone}}\n"
    events = [turn(0, 0.5, 1.0, "a"), turn(1, 1.8, 2.3, "b")]
    recording = faulted(record([(0.5, 1.0), (1.8, 2.3)], [], events, duration=2.5),
                        DROPPED, 2.5)
    a, b = analyze(recording, scenario(tmp_path, body)).turns
    assert a.notes == ("no agent speech before the next turn started 800 ms after the end "
                       "of the user's speech, before response_timeout_ms 5000 passed",)
    assert b.notes[0].startswith("the session ended by an agent fault during the turn, 200 ms")


def test_barge_in_cut_by_a_fault(tmp_path: Path) -> None:
    # the agent talks from 0 s until the recording ends at 2.0 s, where it failed
    events = [turn(0, 1.0, 1.6, "b")] + packets(0.0, 2.0)
    recording = faulted(record([(1.0, 1.6)], [(0.0, 2.0)], events, duration=2.0),
                        DROPPED, 2.0)
    (t,) = analyze(recording, scenario(tmp_path, STOP)).turns
    assert t.stopped is False and not t.passed
    assert t.notes == ("the session ended by an agent fault during the turn before the agent "
                       f"stopped: {DROPPED}",)


def test_a_stall_found_at_close_is_named_in_failed_turns(tmp_path: Path) -> None:
    # the agent stalled unnoticed; the closing handshake 2 s after the 4.0 s recording
    # found it. The barge-in failed because the agent was silent: the note must not leave
    # the scenario timing as the only explanation
    stall = "agent stalled: it did not answer the closing handshake within 2 s"
    events = [turn(0, 1.0, 1.6, "b")]
    recording = faulted(record([(1.0, 1.6)], [], events), stall, 6.0)
    (t,) = analyze(recording, scenario(tmp_path, STOP)).turns
    assert t.notes == ("the agent was not talking at the user's onset, so the scenario timing "
                       "did not create a barge-in",
                       f"the agent failed in this session, which may be why: {stall}")


STOP = "  - {id: b, audio: {synth: tone}, expect: stop, max_stop_ms: 400}\n"


def test_barge_in_stop_time_vad_and_clear(tmp_path: Path) -> None:
    # agent talks 0.0-1.3 s; the user interrupts at 1.0 s; the agent's clear came at 1.25 s.
    # VAD stop time 1.3 - 1.0 = 300 ms <= 400: pass; clear-based stop time 250 ms.
    clear = {"type": "clear", "t_ms": 1250.0, "dropped_ms": 0.0}
    events = [turn(0, 1.0, 1.6, "b"), clear] + packets(0.0, 1.3)
    result = analyze(record([(1.0, 1.6)], [(0.0, 1.3)], events), scenario(tmp_path, STOP))
    (t,) = result.turns
    assert (t.stop_ms, t.clear_stop_ms, t.stopped, t.passed) == (300.0, 250.0, True, True)
    strict = STOP.replace("400", "200")
    (t,) = analyze(record([(1.0, 1.6)], [(0.0, 1.3)], events), scenario(tmp_path, strict)).turns
    assert (t.stop_ms, t.stopped, t.passed) == (300.0, False, False)
    assert "more than max_stop_ms 200" in t.notes[0]


def test_barge_in_without_agent_speech_fails_with_a_note(tmp_path: Path) -> None:
    events = [turn(0, 1.0, 1.6, "b")]
    (t,) = analyze(record([(1.0, 1.6)], [], events), scenario(tmp_path, STOP)).turns
    assert not t.passed and t.stop_ms is None and t.stopped is None
    assert "not talking at the user's onset" in t.notes[0]


def test_barge_in_never_stopped_is_not_reported(tmp_path: Path) -> None:
    events = [turn(0, 1.0, 1.6, "b")] + packets(0.0, 4.0)
    (t,) = analyze(record([(1.0, 1.6)], [(0.0, 4.0)], events), scenario(tmp_path, STOP)).turns
    assert t.stop_ms is None and t.stopped is False and not t.passed
    assert "never stopped" in t.notes[0]


def test_agent_still_talking_when_a_ragged_recording_ends_never_stopped(
        tmp_path: Path) -> None:
    # vad.agent.frame_ms 30 on a 4.0 s recording: 4.0 / 0.03 = 133.3 frames, so the
    # detector sees 133 whole frames (3.99 s) and flush closes the agent's open 0.0-4.0 s
    # segment at 3.99 s, short of the end. It is still the segment that never closed: no
    # stop time (not 3.99 - 1.0 = 2990 ms <= 5000), stopped False, the turn fails.
    thirty = "vad:\n  agent: {frame_ms: 30}\n"
    events = [turn(0, 1.0, 1.6, "b")] + packets(0.0, 4.0)
    result = analyze(record([(1.0, 1.6)], [(0.0, 4.0)], events),
                     scenario(tmp_path, STOP.replace("400", "5000"), extra=thirty))
    assert result.agent_segments == (Span(0, 3_990_000, open_at_end=True),)
    (t,) = result.turns
    assert (t.stop_ms, t.stopped, t.passed) == (None, False, False)
    assert t.notes == ("the agent never stopped before the session ended",)
    # a noise turn under the same agent: it kept talking, so no false barge-in (before the
    # fix, 2990 ms <= max_stop_ms 3000 counted one)
    noise = "  - {id: n, audio: {synth: noise}, expect: ignore, max_stop_ms: 3000}\n"
    (n,) = analyze(record([(1.0, 1.2)], [(0.0, 4.0)], [turn(0, 1.0, 1.2, "n")]),
                   scenario(tmp_path, noise, extra=thirty)).turns
    assert (n.false_barge_in, n.spurious_response, n.passed) == (False, False, True)


NOISE = "  - {id: n, audio: {synth: noise}, expect: ignore, max_stop_ms: 500}\n"


@pytest.mark.parametrize(("agent", "false_barge_in", "spurious", "passed"), [
    ([(0.0, 1.3)], True, False, False),   # stopped 300 ms after the noise's onset
    ([(0.0, 3.0)], False, False, True),   # kept talking 2000 ms > 500 ms
    ([(1.6, 2.5)], False, True, False),   # was silent, started 400 ms after the noise ended
    ([], False, False, True),             # stayed silent
])
def test_noise_turns(tmp_path: Path, agent: list[tuple[float, float]], false_barge_in: bool,
                     spurious: bool, passed: bool) -> None:
    events = [turn(0, 1.0, 1.2, "n")]
    (t,) = analyze(record([(1.0, 1.2)], agent, events), scenario(tmp_path, NOISE)).turns
    assert (t.false_barge_in, t.spurious_response, t.passed) == (false_barge_in, spurious, passed)


def test_wer_joins_final_user_transcripts_of_the_window(tmp_path: Path) -> None:
    # reference "book a table for two" (5 words); hypothesis "Book a table, for you!"
    # -> 1 substitution (two -> you): WER 1/5. The partial and the agent transcript and
    # the one from before the window are ignored.
    events = [turn(0, 0.5, 1.5), *packets(2.0, 2.5),
              {"type": "transcript", "t_ms": 100.0, "role": "user", "text": "hello",
               "final": True},
              {"type": "transcript", "t_ms": 1600.0, "role": "user", "text": "book a",
               "final": True},
              {"type": "transcript", "t_ms": 1650.0, "role": "user", "text": "book a ta",
               "final": False},
              {"type": "transcript", "t_ms": 1700.0, "role": "user", "text": "table, for you!",
               "final": True},
              {"type": "transcript", "t_ms": 2100.0, "role": "agent", "text": "sure",
               "final": True}]
    (t,) = analyze(record([(0.5, 1.5)], [(2.0, 2.5)], events), scenario(tmp_path, RESPOND)).turns
    assert t.transcript == "book a table, for you!"
    assert t.wer == pytest.approx(0.2)


def test_windows_split_speech_between_turns_and_unplayed_turns(tmp_path: Path) -> None:
    body = ("  - {id: a, audio: {synth: tone}}\n  - {id: b, audio: {synth: tone}}\n"
            "  - {id: c, audio: {synth: tone}}\n")
    events = ([turn(0, 0.5, 1.0, "a"), turn(1, 2.0, 2.5, "b")] + packets(1.3, 1.8)
              + packets(2.9, 3.4) + [{"type": "truncated", "t_ms": 4000.0}])
    result = analyze(record([(0.5, 1.0), (2.0, 2.5)], [(1.3, 1.8), (2.9, 3.4)], events),
                     scenario(tmp_path, body))
    a, b, c = result.turns
    assert (a.response_latency_ms, a.end_s) == (300.0, 2.0)  # 1.3 - 1.0; window ends at b
    assert (b.user_onset_s, b.response_latency_ms, b.end_s) == (2.0, 400.0, 4.0)
    assert c.trigger == "not_played" and c.start_s is None and not c.passed
    assert "max_duration_ms" in c.notes[0]
    assert result.truncated


def test_no_user_speech_in_the_window(tmp_path: Path) -> None:
    (t,) = analyze(record([], [], [turn(0, 0.5, 1.5)]), scenario(tmp_path, RESPOND)).turns
    assert t.user_onset_s is None and t.responded is None and not t.passed
    assert "no user speech" in t.notes[0]


def test_rate_mismatch_and_malformed_events_are_refused(tmp_path: Path) -> None:
    sc = scenario(tmp_path, RESPOND)
    wrong = SessionRecording(sample_rate=8000, user=np.zeros(8000, np.int16),
                             agent=np.zeros(8000, np.int16))
    with pytest.raises(InputError, match="8000 Hz does not match the scenario's 16000 Hz"):
        analyze(wrong, sc)
    # a malformed log is refused when it is read, before any metric sees it
    bad = {"type": "turn", "t_ms": 500.0, "turn": "t0", "index": 0, "trigger": "session_start",
           "anchor_ms": None}
    with pytest.raises(InputError, match=r"event 0 \('turn'\): .*missing field 'end_ms'"):
        record([], [], [bad])
