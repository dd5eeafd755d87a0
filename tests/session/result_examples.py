"""Examples of every session result kind, for the round-trip test in tests/core/test_results.py.

Times are multiples of 1/64 so they survive JSON text exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from speecheval.core.timeline import Span
from speecheval.session.metrics.results import SessionMetrics, TurnMetrics
from speecheval.session.record import events as ev

ms = st.integers(0, 64 * 5000).map(lambda k: k / 64)
maybe_ms = st.none() | ms
maybe_flag = st.none() | st.booleans()
text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
count = st.integers(0, 40)

turn_metrics = st.builds(
    TurnMetrics, id=text, expect=st.sampled_from(["respond", "stop", "ignore"]), trigger=text,
    start_s=maybe_ms, end_s=maybe_ms, audio_end_s=maybe_ms, user_onset_s=maybe_ms,
    user_offset_s=maybe_ms, responded=maybe_flag, response_latency_ms=maybe_ms,
    ttfa_ms=maybe_ms, talk_over=maybe_flag, stopped=maybe_flag, stop_ms=maybe_ms,
    clear_stop_ms=maybe_ms, false_barge_in=maybe_flag, spurious_response=maybe_flag,
    transcript=st.none() | text, wer=maybe_ms, passed=st.booleans(),
    notes=st.lists(text, max_size=2).map(tuple))

span = st.tuples(st.integers(0, 10**7), st.integers(0, 10**6), st.booleans()).map(
    lambda t: Span(t[0], t[0] + t[1], open_at_end=t[2]))

session_metrics = st.builds(
    SessionMetrics, turns=st.lists(turn_metrics, max_size=2).map(tuple), duration_s=ms,
    user_speech_ms=ms, agent_speech_ms=ms, overlap_ms=ms, talk_over_ms=ms,
    truncated=st.booleans(), fault=st.none() | text,
    user_segments=st.lists(span, max_size=2).map(tuple),
    agent_segments=st.lists(span, max_size=2).map(tuple),
    send_lateness_ms=st.fixed_dictionaries({"p50": maybe_ms, "p99": maybe_ms,
                                            "max": maybe_ms}))

EVENTS: dict[str, st.SearchStrategy[Any]] = {
    "session": st.builds(ev.SessionStart, t_ms=ms, sample_rate=st.integers(8000, 48000),
                         frame_ms=ms, clock=st.sampled_from(["virtual", "real"])),
    "connected": st.builds(ev.Connected, t_ms=ms),
    "turn": st.builds(ev.TurnStart, t_ms=ms, turn=text, index=count, trigger=text,
                      anchor_ms=maybe_ms, end_ms=ms),
    "audio": st.builds(ev.AgentAudio, t_ms=ms, samples=count, level_dbfs=maybe_ms,
                       placed_ms=ms),
    "clear": st.builds(ev.AgentClear, t_ms=ms, dropped_ms=ms, played_ms=st.none() | count),
    "speech_started": st.builds(ev.SpeechStart, t_ms=ms, dropped_ms=ms, played_ms=count),
    "transcript": st.builds(ev.TranscriptLine, t_ms=ms, role=st.sampled_from(["user", "agent"]),
                            text=text, final=st.booleans()),
    "server": st.builds(ev.ServerEvent, t_ms=ms,
                        name=st.sampled_from(["speech_stopped", "response_created"])),
    "network": st.builds(ev.NetworkPacket, t_ms=ms, seq=count,
                         state=st.sampled_from(["good", "bad"]), delay_ms=ms,
                         reordered=st.booleans(),
                         outcome=st.sampled_from(["ok", "lost", "late"])),
    "truncated": st.builds(ev.Truncated, t_ms=ms),
    "fault": st.builds(ev.Fault, t_ms=ms, reason=text),
    "input_end": st.builds(ev.InputEnd, t_ms=ms),
    "close_error": st.builds(ev.CloseError, t_ms=ms, reason=text),
    "end": st.builds(ev.End, t_ms=ms),
}


def _any(strategy: st.SearchStrategy[Any]) -> Callable[[str], st.SearchStrategy[Any]]:
    return lambda prefix: strategy


SESSION_EXAMPLES: dict[str, Callable[[str], st.SearchStrategy[Any]]] = {
    "session.turn_metrics": _any(turn_metrics),
    "session.metrics": _any(session_metrics),
    **{f"session.event.{name}": _any(strategy) for name, strategy in EVENTS.items()},
}
