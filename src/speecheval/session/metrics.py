"""Turn and session metrics of one recorded session (spec: voice-agent-session-metrics).

Everything is computed after the session from the two tracks and the event log, on
integer microseconds (times from the detector are multiples of a frame; rounding to the
microsecond first makes "starts after the onset" an exact comparison). Missing values are
``None`` with a note saying why, never 0.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core.audio import Audio
from ..core.errors import InputError
from ..core.timebase import from_us, to_us
from ..vad.streaming import detect_segments
from . import events as ev
from .recording import SessionRecording
from .scenario import Scenario, TrackVad, Turn
from .wer import wer

# Agent packets at or below this level are not "audio" for time to first audio.
PACKET_FLOOR_DB = -70.0
# The note of a failed turn whose window the agent's fault cut short.
FAULT_DURING_TURN = "the session ended by an agent fault during the turn"
# A fault ends the recording where it is logged; the log's clock and the track's sample
# count round differently, so a fault up to 1 ms past the end still ended the session.
_FAULT_SLACK_US = 1000

Span = tuple[int, int]  # (start_us, end_us)


@dataclass(frozen=True)
class TurnMetrics:
    """One scripted turn. Times in seconds unless the name ends in ``_ms``."""

    id: str
    expect: str
    trigger: str
    start_s: float | None
    end_s: float | None
    audio_end_s: float | None
    user_onset_s: float | None
    user_offset_s: float | None
    responded: bool | None
    response_latency_ms: float | None
    ttfa_ms: float | None
    talk_over: bool | None
    stopped: bool | None
    stop_ms: float | None
    clear_stop_ms: float | None
    false_barge_in: bool | None
    spurious_response: bool | None
    transcript: str | None
    wer: float | None
    passed: bool
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class SessionMetrics:
    """One session: its turns, speech totals, and the detected segments of both tracks."""

    turns: tuple[TurnMetrics, ...]
    duration_s: float
    user_speech_ms: float
    agent_speech_ms: float
    overlap_ms: float
    talk_over_ms: float
    truncated: bool
    fault: str | None
    user_segments: tuple[Span, ...]
    agent_segments: tuple[Span, ...]
    send_lateness_ms: dict[str, float | None]

    def to_dict(self) -> dict[str, Any]:
        return {
            "turns": [turn.to_dict() for turn in self.turns],
            "duration_s": self.duration_s,
            "user_speech_ms": self.user_speech_ms,
            "agent_speech_ms": self.agent_speech_ms,
            "overlap_ms": self.overlap_ms,
            "talk_over_ms": self.talk_over_ms,
            "truncated": self.truncated,
            "fault": self.fault,
            "user_segments": [[from_us(a), from_us(b)] for a, b in self.user_segments],
            "agent_segments": [[from_us(a), from_us(b)] for a, b in self.agent_segments],
            "send_lateness_ms": self.send_lateness_ms,
        }


def _ms(us: int) -> float:
    return us / 1000.0


@dataclass(frozen=True)
class TrackSpeech:
    """Speech of one track as microsecond spans, and the one still open at its end.

    ``running`` is the last span when the detector had not confirmed its offset when the
    track ended (the speaker was still talking, as far as the detector knows); its end is
    then not a stop time.
    """

    spans: tuple[Span, ...]
    running: Span | None


def track_segments(samples: NDArray[np.int16], rate: int, vad: TrackVad) -> TrackSpeech:
    """Speech of one track, with the track's chosen detector."""
    if vad.engine == "silero":
        try:
            from ..vad.silero import SileroSettings, SileroVad
        except ImportError as exc:
            raise InputError("vad engine 'silero' is not available in this installation "
                             f"({exc})") from exc
        audio = Audio(samples=samples.astype(np.float32) / 32768.0, rate=rate)
        found = SileroVad(SileroSettings()).segments(audio)
        spans = tuple((s.start_us, s.end_us) for s in found)
        # Silero cuts speech still going at the end of the audio exactly at that end
        end = to_us(samples.size / rate)
        return TrackSpeech(spans, spans[-1] if spans and spans[-1][1] >= end else None)
    segments = detect_segments(samples, rate, vad.settings)
    spans = tuple((s.start_us, s.end_us) for s in segments)
    return TrackSpeech(spans, spans[-1] if segments and segments[-1].open_at_end else None)


def overlap_us(first: tuple[Span, ...] | list[Span], second: tuple[Span, ...]) -> int:
    """Total time covered by both span lists (each list non-overlapping in itself).

    >>> overlap_us([(0, 10), (20, 30)], ((5, 25),))   # 5 + 5
    10
    """
    if not first or not second:
        return 0
    a = np.asarray(first, dtype=np.int64)
    b = np.asarray(second, dtype=np.int64)
    lo = np.maximum(a[:, None, 0], b[None, :, 0])
    hi = np.minimum(a[:, None, 1], b[None, :, 1])
    return int(np.clip(hi - lo, 0, None).sum())


def _stats_ms(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p99": None, "max": None}
    array = np.asarray(values, dtype=np.float64)
    return {"p50": float(np.percentile(array, 50)), "p99": float(np.percentile(array, 99)),
            "max": float(array.max())}


def analyze(recording: SessionRecording, scenario: Scenario) -> SessionMetrics:
    """All turn and session metrics of ``recording``, a run of ``scenario``."""
    rate = recording.sample_rate
    if rate != scenario.sample_rate:
        raise InputError(f"recording rate {rate} Hz does not match the scenario's "
                         f"{scenario.sample_rate} Hz", path=scenario.path)
    log = ev.parse_log(recording.events)
    duration = to_us(recording.user.size / rate)
    user = track_segments(recording.user, rate, scenario.user_vad).spans
    agent_speech = track_segments(recording.agent, rate, scenario.agent_vad)
    agent = agent_speech.spans
    context = _Context(log, user, agent, agent_speech.running, duration,
                       [to_us(p.t_s) for p in log.packets], recording.fault,
                       None if log.fault_s is None else to_us(log.fault_s))
    turns: list[TurnMetrics] = []
    talk_over = 0
    by_index = {window.index: window for window in log.windows}
    ordered = [by_index[k] for k in sorted(by_index)]
    for k, window in enumerate(ordered):
        turn = scenario.turns[window.index]
        next_start = to_us(ordered[k + 1].start_s) if k + 1 < len(ordered) else duration
        metrics, mine = _turn(turn, window, next_start, context)
        turns.append(metrics)
        if turn.expect == "respond":
            talk_over += overlap_us(mine, agent)
    for turn in scenario.turns[len(ordered):]:
        reason = ("the session hit max_duration_ms first" if log.truncated
                  else f"the session ended first ({recording.fault or 'no reason logged'})")
        turns.append(_not_played(turn, reason))
    return SessionMetrics(
        turns=tuple(turns),
        duration_s=from_us(duration),
        user_speech_ms=_ms(sum(b - a for a, b in user)),
        agent_speech_ms=_ms(sum(b - a for a, b in agent)),
        overlap_ms=_ms(overlap_us(user, agent)),
        talk_over_ms=_ms(talk_over),
        truncated=log.truncated,
        fault=recording.fault,
        user_segments=user,
        agent_segments=agent,
        send_lateness_ms=_stats_ms(recording.send_lateness_ms),
    )


@dataclass(frozen=True)
class _Context:
    log: ev.SessionLog
    user: tuple[Span, ...]
    agent: tuple[Span, ...]
    agent_running: Span | None  # the agent segment still open when the recording ended
    duration: int
    packet_us: list[int]  # arrival of each packet in log order (runners log in time order)
    fault: str | None = None
    fault_us: int | None = None  # when the fault was logged; past the end: found at close

    def fault_during(self, start: int, end: int) -> bool:
        """Whether the agent's fault ended the session inside [start, end]."""
        return (self.fault is not None and not self.fault_after_recording
                and self.fault_us is not None
                and start <= self.fault_us <= end + _FAULT_SLACK_US)

    @property
    def fault_after_recording(self) -> bool:
        """The fault was found only once the recording had ended (a stall at close)."""
        return self.fault is not None and (self.fault_us is None
                                           or self.fault_us > self.duration + _FAULT_SLACK_US)


def _not_played(turn: Turn, reason: str) -> TurnMetrics:
    return TurnMetrics(
        id=turn.id, expect=turn.expect, trigger=ev.TRIGGER_NOT_PLAYED, start_s=None,
        end_s=None, audio_end_s=None, user_onset_s=None, user_offset_s=None, responded=None,
        response_latency_ms=None, ttfa_ms=None, talk_over=None, stopped=None, stop_ms=None,
        clear_stop_ms=None, false_barge_in=None, spurious_response=None, transcript=None,
        wer=None, passed=False, notes=(f"turn never played: {reason}",))


def _turn(turn: Turn, window: ev.TurnWindow, next_start: int,
          ctx: _Context) -> tuple[TurnMetrics, list[Span]]:
    start = to_us(window.start_s)
    notes: list[str] = []
    if window.trigger == ev.TRIGGER_TIMEOUT:
        notes.append(f"start anchor {turn.start.after!r} never happened; the turn started "
                     f"after its {turn.start.timeout_ms:g} ms timeout")
    mine = [s for s in ctx.user if s[1] > start and s[0] < next_start]
    cut = ctx.fault_during(start, next_start)  # the agent's fault ended this turn's window
    values: dict[str, Any] = {
        "user_onset_s": None, "user_offset_s": None, "responded": None,
        "response_latency_ms": None, "ttfa_ms": None, "talk_over": None, "stopped": None,
        "stop_ms": None, "clear_stop_ms": None, "false_barge_in": None,
        "spurious_response": None,
    }
    passed = False
    if not mine:
        notes.append("no user speech detected in the turn's window; check vad.user")
    else:
        onset, offset = mine[0][0], mine[-1][1]
        values["user_onset_s"], values["user_offset_s"] = from_us(onset), from_us(offset)
        passed = _judge(turn, onset, offset, next_start, ctx, values, notes,
                        to_us(window.end_s) if cut else None)
    if not passed and ctx.fault is not None:
        if cut:
            if not any(FAULT_DURING_TURN in note for note in notes):
                notes.append(f"{FAULT_DURING_TURN}: {ctx.fault}")
        elif ctx.fault_after_recording:
            notes.append(f"the agent failed in this session, which may be why: {ctx.fault}")
    transcript, error = _transcript(turn, start, next_start, ctx, notes)
    metrics = TurnMetrics(
        id=turn.id, expect=turn.expect, trigger=window.trigger, start_s=window.start_s,
        end_s=from_us(next_start), audio_end_s=window.end_s, transcript=transcript,
        wer=error, passed=passed, notes=tuple(notes), **values)
    return metrics, mine


def _judge(turn: Turn, onset: int, offset: int, next_start: int, ctx: _Context,
           values: dict[str, Any], notes: list[str], cut_audio_end: int | None) -> bool:
    """Fill the expectation's values; return whether the turn passed.

    ``cut_audio_end`` is the end of the turn's audio when the agent's fault ended the
    session during this turn's window, else None.
    """
    limit = min(next_start, offset + to_us(turn.response_timeout_ms / 1000.0))
    reply = next((a for a in ctx.agent if onset < a[0] <= limit), None)
    playing = next((a for a in ctx.agent if a[0] <= onset < a[1]), None)
    values["responded"] = reply is not None
    if reply is not None and turn.expect != "ignore":
        # a barge-in's reply is timed too: how fast the agent answered the interruption
        values["response_latency_ms"] = _ms(reply[0] - offset)
        values["talk_over"] = reply[0] < offset
        if values["talk_over"]:
            notes.append("the agent started talking before the user finished (talk-over); "
                         "time to first audio is not reported")
        else:
            values["ttfa_ms"] = _ttfa(reply, offset, limit, ctx)
    if turn.expect == "respond":
        if reply is None:
            notes.append(_missed_note(turn, offset, limit, ctx, cut_audio_end))
        return reply is not None
    if turn.expect == "stop":
        values["clear_stop_ms"] = next(
            (_ms(c - onset) for c in map(to_us, ctx.log.clears_s) if onset <= c < next_start),
            None)
        if playing is None:
            notes.append("the agent was not talking at the user's onset, so the scenario "
                         "timing did not create a barge-in")
            return False
        if playing == ctx.agent_running:
            values["stopped"] = False
            notes.append(f"{FAULT_DURING_TURN} before the agent stopped: {ctx.fault}"
                         if cut_audio_end is not None
                         else "the agent never stopped before the session ended")
            return False
        stop = playing[1] - onset
        values["stop_ms"] = _ms(stop)
        values["stopped"] = stop <= to_us(turn.max_stop_ms / 1000.0)
        if not values["stopped"]:
            notes.append(f"the agent kept talking {_ms(stop):g} ms, more than "
                         f"max_stop_ms {turn.max_stop_ms:g}")
        return bool(values["stopped"])
    if playing is not None:
        stop = playing[1] - onset
        values["false_barge_in"] = (playing != ctx.agent_running
                                    and stop <= to_us(turn.max_stop_ms / 1000.0))
        values["spurious_response"] = False
        if values["false_barge_in"]:
            notes.append(f"the agent stopped {_ms(stop):g} ms after non-speech input: a false "
                         "barge-in (a reply ending naturally this close looks the same)")
    else:
        values["false_barge_in"] = False
        values["spurious_response"] = reply is not None
        if reply is not None:
            notes.append("the agent started talking in response to non-speech input")
    return not values["false_barge_in"] and not values["spurious_response"]


def _missed_note(turn: Turn, offset: int, limit: int, ctx: _Context,
                 cut_audio_end: int | None) -> str:
    """Why no reply was found: the timeout passed, the window closed before it did (the
    next turn started, or the session ended), or the agent's fault ended the session
    (``cut_audio_end``: the turn's audio end, when it did so during this turn)."""
    timeout = f"response_timeout_ms {turn.response_timeout_ms:g}"
    if limit >= offset + to_us(turn.response_timeout_ms / 1000.0):
        return (f"no agent speech started within {turn.response_timeout_ms:g} ms "
                "of the end of the user's speech")
    waited = f"{_ms(max(0, limit - offset)):g} ms after the end of the user's speech"
    if limit >= ctx.duration and cut_audio_end is not None:
        if cut_audio_end > ctx.duration:  # the recording stopped inside the user's audio
            return f"{FAULT_DURING_TURN}, while the user was still speaking: {ctx.fault}"
        return f"{FAULT_DURING_TURN}, {waited}, before {timeout} passed: {ctx.fault}"
    if limit >= ctx.duration:
        return f"no agent speech before the session ended {waited}, before {timeout} passed"
    return (f"no agent speech before the next turn started {waited}, before {timeout} "
            "passed")


def _ttfa(reply: Span, offset: int, limit: int, ctx: _Context) -> float | None:
    """Offset to the first audible packet of the reply (not of an earlier segment)."""
    floor = max([offset] + [a[1] for a in ctx.agent if a[1] <= reply[0]])
    for index in range(bisect_left(ctx.packet_us, floor), len(ctx.packet_us)):
        if ctx.packet_us[index] > limit:
            break
        if ctx.log.packets[index].level_db > PACKET_FLOOR_DB:
            return _ms(ctx.packet_us[index] - offset)
    return None


def _transcript(turn: Turn, start: int, next_start: int, ctx: _Context,
                notes: list[str]) -> tuple[str | None, float | None]:
    texts = [t.text for t in ctx.log.transcripts
             if t.role == "user" and t.final and start <= to_us(t.t_s) < next_start]
    transcript = " ".join(texts) if texts else None
    if turn.text is None:
        return transcript, None
    if transcript is None:
        notes.append("the turn has expected text but the agent reported no final user "
                     "transcript in its window")
        return None, None
    return transcript, wer(turn.text, transcript)
