"""When each scripted user turn starts: one decision shared by both clocks.

A turn starts at the first frame boundary at or after its anchor plus its delay, where the
anchor is the session start, the end of the previous turn, or the next agent speech onset
or offset seen after the previous turn ended. Agent speech is found, in the agent audio
as it plays, by the detector the scenario declares for the agent track (``vad.agent``):
the energy :class:`StreamingVad`, or Silero through :class:`SileroStream`, so that the
anchors are the very boundaries the metrics later find in the recorded track. A turn
whose agent anchor never comes starts at its timeout.

The virtual-clock runner asks the scheduler at every frame; on the real clock,
:class:`ScriptFeed` wraps it as the live user feed of ``run_realtime``, so the same
scenario plays the same way against the mock and against a socket transport.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from ...vad.streaming import StreamingVad
from ..record import events as ev
from ..record.recording import SessionRecording
from ..scenario.detectors import anchor_detector
from ..scenario.model import Scenario, Turn
from .send.send_path import SendPath

_EPS_S = 1e-9


class TurnScheduler:
    """Starts turns in order from the agent speech observed so far; logs a ``turn`` event each.

    ``push`` must receive the agent track contiguously from sample 0, and only audio
    that has already played (a later clear cannot remove it). ``vad`` is the energy
    detector with the ``vad.agent`` settings, which says whether the agent is still
    talking (:attr:`speaking`: at the end of the session, on either clock); the anchors
    come from the declared engine, which is the same detector unless it is Silero, and
    which stops listening once every turn has started.
    """

    def __init__(self, scenario: Scenario, clips: list[NDArray[np.int16]]) -> None:
        self.turns = scenario.turns
        self.clips = clips
        self.rate = scenario.sample_rate
        self.vad = StreamingVad(self.rate, scenario.agent_vad.settings)
        self.anchor_detector = anchor_detector(scenario.agent_vad, self.rate, self.vad)
        self.onsets: list[float] = []
        self.offsets: list[float] = []
        self.next_turn = 0
        self.prev_end_s = 0.0
        self.events: list[ev.TurnStart] = []

    @property
    def finished(self) -> bool:
        """Every turn has started."""
        return self.next_turn >= len(self.turns)

    @property
    def speaking(self) -> bool:
        """The agent is talking: the detector has a segment open."""
        return self.vad.speaking

    def push(self, played: NDArray[np.int16]) -> None:
        """Feed agent audio that has played since the last call to the speech detector."""
        if not played.size:
            return
        if self.anchor_detector is self.vad or not self.finished:
            for boundary in self.anchor_detector.push(played):
                (self.onsets if boundary.kind == "onset" else self.offsets).append(
                    boundary.time_s)
        if self.anchor_detector is not self.vad:
            self.vad.push(played)

    def _anchor(self, turn: Turn) -> float | None:
        after = turn.start.after
        if after == "session_start":
            return 0.0
        if after == "previous_turn_end":
            return self.prev_end_s
        times = self.onsets if after == "agent_speech_start" else self.offsets
        k = bisect_left(times, self.prev_end_s - _EPS_S)
        return times[k] if k < len(times) else None

    def due(self, pos: int) -> NDArray[np.int16] | None:
        """The clip of the turn that starts at sample ``pos``, if one does (and log it)."""
        t = pos / self.rate
        if self.finished or t + _EPS_S < self.prev_end_s:
            return None
        turn = self.turns[self.next_turn]
        anchor = self._anchor(turn)
        trigger: str
        if anchor is not None and t + _EPS_S >= anchor + turn.start.delay_ms / 1000.0:
            trigger = turn.start.after
        elif t + _EPS_S >= self.prev_end_s + turn.start.timeout_ms / 1000.0:
            trigger, anchor = ev.TRIGGER_TIMEOUT, None
        else:
            return None
        clip = self.clips[self.next_turn]
        self.prev_end_s = (pos + clip.size) / self.rate
        self.events.append(ev.TurnStart(
            t_ms=t * 1000.0, turn=turn.id, index=self.next_turn, trigger=trigger,
            anchor_ms=None if anchor is None else anchor * 1000.0,
            end_ms=self.prev_end_s * 1000.0))
        self.next_turn += 1
        return clip


class ScriptFeed:
    """The scenario's user track, made frame by frame on the real clock (a ``UserFeed``).

    Frames are silence until a turn is due; the script is over (``None``) once the last
    turn has been sent in full, and the runner's tail follows. The scheduler is the feed's
    ``listener`` (a ``ListeningFeed``): the runner feeds it the agent audio of every
    frame and asks it whether the agent is still talking, one detector for both jobs.
    """

    def __init__(self, scenario: Scenario, clips: list[NDArray[np.int16]], frame: int) -> None:
        self.scheduler = self.listener = TurnScheduler(scenario, clips)
        self.frame = frame
        self.pending = np.zeros(0, dtype=np.int16)
        self.send = (SendPath(scenario.conditions, scenario.sample_rate, scenario.frame_ms,
                              frame, clips) if scenario.conditions.any else None)
        self.clean: list[NDArray[np.int16]] = []  # the script, kept when conditions apply

    def next_frame(self, index: int,
                   agent_played: NDArray[np.int16]) -> NDArray[np.int16] | None:
        if self.pending.size == 0:
            clip = self.scheduler.due(index * self.frame)
            if clip is None and self.scheduler.finished:
                return None
            if clip is not None:
                self.pending = clip
        out = np.zeros(self.frame, dtype=np.int16)
        take = min(self.frame, self.pending.size)
        out[:take] = self.pending[:take]
        self.pending = self.pending[take:]
        return self._conditioned(index, out, agent_played)

    def tail_frame(self, index: int, agent_played: NDArray[np.int16]) -> NDArray[np.int16]:
        return self._conditioned(index, np.zeros(self.frame, dtype=np.int16), agent_played)

    def _conditioned(self, index: int, clean: NDArray[np.int16],
                     agent_played: NDArray[np.int16]) -> NDArray[np.int16]:
        if self.send is None:
            return clean
        self.clean.append(clean)
        return self.send.send(index, clean, agent_played)

    def attach(self, recording: SessionRecording) -> SessionRecording:
        """The recording with the turn events merged in, and ``truncated`` if turns never
        started before the session ended (not after a fault, which says why itself).

        With conditions, what the runner sent becomes ``sent`` and the clean script
        ``user``, as on the virtual clock, and the send path's events join the log."""
        extra: list[ev.Event] = list(self.scheduler.events)
        if not self.scheduler.finished and recording.fault is None:
            extra.append(ev.Truncated(
                t_ms=recording.user.size * 1000.0 / recording.sample_rate))
        if self.send is not None:
            extra.extend(self.send.events)
            clean = np.zeros(recording.user.size, dtype=np.int16)
            script = np.concatenate(self.clean) if self.clean else clean[:0]
            clean[:min(clean.size, script.size)] = script[:clean.size]
            recording = replace(recording, user=clean, sent=recording.user)
        merged = sorted([*recording.events, *extra], key=lambda event: event.t_ms)
        return replace(recording, events=merged)
