"""The passes over one recorded session that make its turn and session metrics
(spec: voice-agent-session-metrics).

Everything is computed after the session from the two tracks and the event log, on
integer microseconds (times from the detector are multiples of a frame; rounding to the
microsecond first makes "starts after the onset" an exact comparison). Missing values are
``None`` with a note saying why, never 0.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...core.audio import Audio
from ...core.errors import InputError
from ...core.timebase import from_us, to_us
from ...core.timeline import Span, Spans
from ..record import events as ev
from ..record.events import PACKET_FLOOR_DB
from ..record.recording import SessionRecording
from ..scenario.detectors import whole_track_vad
from ..scenario.model import Scenario, TrackVad, Turn
from ..scenario.wer import wer
from .condition_metrics import condition_metrics
from .latency_split import with_latency_split
from .reply_checks import agent_words, with_reply_checks
from .results import SessionMetrics, TurnMetrics
from .task_judge import judge_session

# The note of a failed turn whose window the agent's fault cut short.
FAULT_DURING_TURN = "the session ended by an agent fault during the turn"
# A fault ends the recording where it is logged; the log's clock and the track's sample
# count round differently, so a fault up to 1 ms past the end still ended the session.
_FAULT_SLACK_US = 1000


def _ms(us: int) -> float:
    return us / 1000.0


def track_speech(samples: NDArray[np.int16], rate: int, vad: TrackVad) -> Spans:
    """Speech of one track with the track's chosen detector, as microsecond spans.

    The last span has ``open_at_end`` set when the detector had not confirmed its offset
    when the track ended (the speaker was still talking, as far as it knows): its end is
    then not a stop time.
    """
    audio = Audio(samples=samples.astype(np.float32) / 32768.0, rate=rate)
    return Spans.from_spans(whole_track_vad(vad).segments(audio))


def _window(spans: Spans, start: int, end: int) -> Spans:
    """The spans that share time with ``[start, end)``, unclipped."""
    keep = (spans.ends > start) & (spans.starts < end)
    return Spans(spans.starts[keep], spans.ends[keep], open_at_end=spans.open_at_end[keep])


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
    user = track_speech(recording.user, rate, scenario.user_vad)
    agent = track_speech(recording.agent, rate, scenario.agent_vad)
    context = _Context(log, user, tuple(agent), duration,
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
            talk_over += mine.overlap_us(agent)
    for turn in scenario.turns[len(ordered):]:
        reason = ("the session hit max_duration_ms first" if log.truncated
                  else f"the session ended first ({recording.fault or 'no reason logged'})")
        turns.append(_not_played(turn, reason))
    checked = with_latency_split(tuple(turns), recording.events)
    words = (agent_words(recording.agent, recording.sample_rate)
             if scenario.judge is not None or any(t.reply is not None for t in scenario.turns)
             else [])
    if any(turn.reply is not None for turn in scenario.turns):
        checked = with_reply_checks(checked, scenario, words)
    return SessionMetrics(
        turns=checked,
        duration_s=from_us(duration),
        user_speech_ms=_ms(user.covered_us()),
        agent_speech_ms=_ms(agent.covered_us()),
        overlap_ms=_ms(user.overlap_us(agent)),
        talk_over_ms=_ms(talk_over),
        truncated=log.truncated,
        fault=recording.fault,
        user_segments=tuple(user),
        agent_segments=context.agent_list,
        send_lateness_ms=_stats_ms(recording.send_lateness_ms),
        task=(None if scenario.judge is None
              else judge_session(scenario.judge, scenario, checked, words)),
        conditions=(condition_metrics(recording.events, tuple(ordered), user, agent,
                                      scenario.conditions.network is not None)
                    if scenario.conditions.any else None),
    )


@dataclass(frozen=True)
class _Context:
    log: ev.SessionLog
    user: Spans
    agent_list: tuple[Span, ...]  # the agent's speech, searched one by one per turn
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
          ctx: _Context) -> tuple[TurnMetrics, Spans]:
    start = to_us(window.start_s)
    notes: list[str] = []
    if window.trigger == ev.TRIGGER_TIMEOUT:
        notes.append(f"start anchor {turn.start.after!r} never happened; the turn started "
                     f"after its {turn.start.timeout_ms:g} ms timeout")
    mine = _window(ctx.user, start, next_start)
    cut = ctx.fault_during(start, next_start)  # the agent's fault ended this turn's window
    found = _Findings()
    passed = False
    if not len(mine):
        notes.append("no user speech detected in the turn's window; check vad.user")
    else:
        onset, offset = int(mine.starts[0]), int(mine.ends[-1])
        found.user_onset_s, found.user_offset_s = from_us(onset), from_us(offset)
        passed = _judge(turn, onset, offset, next_start, ctx, found, notes,
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
        end_s=from_us(next_start), audio_end_s=window.end_s,
        user_onset_s=found.user_onset_s, user_offset_s=found.user_offset_s,
        responded=found.responded, response_latency_ms=found.response_latency_ms,
        ttfa_ms=found.ttfa_ms, talk_over=found.talk_over, stopped=found.stopped,
        stop_ms=found.stop_ms, clear_stop_ms=found.clear_stop_ms,
        false_barge_in=found.false_barge_in, spurious_response=found.spurious_response,
        transcript=transcript, wer=error, passed=passed, notes=tuple(notes))
    return metrics, mine


@dataclass
class _Findings:
    """What judging a turn found, filled in as it goes (None: not measured)."""

    user_onset_s: float | None = None
    user_offset_s: float | None = None
    responded: bool | None = None
    response_latency_ms: float | None = None
    ttfa_ms: float | None = None
    talk_over: bool | None = None
    stopped: bool | None = None
    stop_ms: float | None = None
    clear_stop_ms: float | None = None
    false_barge_in: bool | None = None
    spurious_response: bool | None = None


def _judge(turn: Turn, onset: int, offset: int, next_start: int, ctx: _Context,
           found: _Findings, notes: list[str], cut_audio_end: int | None) -> bool:
    """Fill the expectation's findings; return whether the turn passed.

    ``cut_audio_end`` is the end of the turn's audio when the agent's fault ended the
    session during this turn's window, else None.
    """
    limit = min(next_start, offset + to_us(turn.response_timeout_ms / 1000.0))
    reply = next((a for a in ctx.agent_list if onset < a.start_us <= limit), None)
    playing = next((a for a in ctx.agent_list if a.contains(onset)), None)
    found.responded = reply is not None
    if reply is not None and turn.expect != "ignore":
        # a barge-in's reply is timed too: how fast the agent answered the interruption
        found.response_latency_ms = _ms(reply.start_us - offset)
        found.talk_over = reply.start_us < offset
        if found.talk_over:
            notes.append("the agent started talking before the user finished (talk-over); "
                         "time to first audio is not reported")
        else:
            found.ttfa_ms = _ttfa(reply, offset, limit, ctx)
    if turn.expect == "respond":
        if reply is None:
            notes.append(_missed_note(turn, offset, limit, ctx, cut_audio_end))
        return reply is not None
    if turn.expect == "stop":
        found.clear_stop_ms = next(
            (_ms(c - onset) for c in map(to_us, ctx.log.clears_s) if onset <= c < next_start),
            None)
        if playing is None:
            notes.append("the agent was not talking at the user's onset, so the scenario "
                         "timing did not create a barge-in")
            return False
        if playing.open_at_end:
            found.stopped = False
            notes.append(f"{FAULT_DURING_TURN} before the agent stopped: {ctx.fault}"
                         if cut_audio_end is not None
                         else "the agent never stopped before the session ended")
            return False
        stop = playing.end_us - onset
        found.stop_ms = _ms(stop)
        found.stopped = stop <= to_us(turn.max_stop_ms / 1000.0)
        if not found.stopped:
            notes.append(f"the agent kept talking {_ms(stop):g} ms, more than "
                         f"max_stop_ms {turn.max_stop_ms:g}")
        return bool(found.stopped)
    if playing is not None:
        stop = playing.end_us - onset
        found.false_barge_in = (not playing.open_at_end
                                    and stop <= to_us(turn.max_stop_ms / 1000.0))
        found.spurious_response = False
        if found.false_barge_in:
            notes.append(f"the agent stopped {_ms(stop):g} ms after non-speech input: a false "
                         "barge-in (a reply ending naturally this close looks the same)")
    else:
        found.false_barge_in = False
        found.spurious_response = reply is not None
        if reply is not None:
            notes.append("the agent started talking in response to non-speech input")
    return not found.false_barge_in and not found.spurious_response


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
    floor = max([offset] + [a.end_us for a in ctx.agent_list if a.end_us <= reply.start_us])
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
