"""A fixed user track for the real clock, for scenarios whose turns do not wait on the agent.

The real-clock runner streams a user track laid out in advance. That is exact for turns
anchored on ``session_start`` or ``previous_turn_end``; a turn anchored on the agent's
speech cannot be placed before the session runs, so such scenarios are refused here
with an error that says so, rather than run with a guessed schedule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core.errors import InputError
from ..core.synthetic_signals import samples_for_ms
from . import events as ev
from .recording import SessionRecording
from .scenario import Scenario
from .virtual_runner import to_int16

FIXED_ANCHORS = ("session_start", "previous_turn_end")


@dataclass(frozen=True)
class FixedPlan:
    """The user track and the turn events that describe it."""

    user: NDArray[np.int16]
    turns: tuple[dict[str, Any], ...]
    sample_rate: int

    def attach(self, recording: SessionRecording) -> SessionRecording:
        """The recording with this plan's turn events (those that started) merged in."""
        duration_ms = recording.user.size * 1000.0 / self.sample_rate
        started = [turn for turn in self.turns if turn["t_ms"] < duration_ms]
        extra: list[dict[str, Any]] = list(started)
        if len(started) < len(self.turns) and recording.fault is None:
            extra.append({"type": ev.TRUNCATED, "t_ms": duration_ms})
        merged = sorted([*recording.events, *extra], key=lambda event: float(event["t_ms"]))
        return replace(recording, events=merged)


def fixed_schedule(scenario: Scenario, clips: list[NDArray[np.float32]]) -> FixedPlan:
    """Lay the turns out on frame boundaries, as the virtual runner would start them."""
    rate = scenario.sample_rate
    frame = max(1, samples_for_ms(scenario.frame_ms, rate))
    for turn in scenario.turns:
        if turn.start.after not in FIXED_ANCHORS:
            raise InputError(f"turn {turn.id} (line {turn.line}) starts on "
                             f"{turn.start.after}; the real-clock runner streams a fixed user "
                             f"track, so only {' and '.join(FIXED_ANCHORS)} anchors can run "
                             "on it", path=scenario.path)
    pieces: list[tuple[int, NDArray[np.int16]]] = []
    events: list[dict[str, Any]] = []
    prev_end = 0
    for index, (turn, clip) in enumerate(zip(scenario.turns, clips, strict=True)):
        anchor = 0 if turn.start.after == "session_start" else prev_end
        due = max(prev_end, anchor + samples_for_ms(turn.start.delay_ms, rate))
        start = math.ceil(due / frame) * frame
        pcm = to_int16(clip)
        pieces.append((start, pcm))
        prev_end = start + pcm.size
        events.append({"type": ev.TURN, "t_ms": start * 1000.0 / rate, "turn": turn.id,
                       "index": index, "trigger": turn.start.after,
                       "end_ms": prev_end * 1000.0 / rate})
    user = np.zeros(prev_end, dtype=np.int16)
    for start, pcm in pieces:
        user[start:start + pcm.size] = pcm
    return FixedPlan(user=user, turns=tuple(events), sample_rate=rate)
