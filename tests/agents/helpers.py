"""Shared pieces of the agent tests: user tracks with known timing, and a runner call."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from speecheval.agents.local.voice import synthetic_speech
from speecheval.agents.registry import open_transport, start_local_agent
from speecheval.session.record.recording import SessionRecording
from speecheval.session.run.realtime import run_realtime

RATE = 16000
SESSION_LIMIT_S = 15.0  # no test session may take longer than this: a hang is a failure
# A frame that keeps up leaves within about +-0.5 ms of its deadline (the runner aims
# half a millisecond early at a 1 ms timer grid): lateness up to 1 ms is the timer, not a
# stall, and summing it over a session's frames would widen an allowance by tens of ms.
JITTER_MS = 1.0


def track(*parts: tuple[str, int], rate: int = RATE) -> NDArray[np.int16]:
    """Concatenate ('speech' | 'silence', ms) parts: a user track with exact boundaries."""
    pieces = [synthetic_speech(ms, rate) if kind == "speech"
              else np.zeros(rate * ms // 1000, np.int16) for kind, ms in parts]
    return np.concatenate(pieces)


async def session(protocol: str, user: NDArray[np.int16], *, kind: str = "turn",
                  agent_options: Mapping[str, str] | None = None,
                  transport_options: Mapping[str, str] | None = None,
                  tail_ms: int = 300, frame_ms: int = 20) -> SessionRecording:
    """One real-clock session against a fresh local agent, bounded in time."""
    options = {"voice": "synthetic", **(agent_options or {})}
    async with start_local_agent(kind, protocol, options) as url:
        transport = open_transport(protocol, {"url": url, **(transport_options or {})})
        return await asyncio.wait_for(
            run_realtime(transport, user, RATE, frame_ms=frame_ms, tail_ms=tail_ms,
                         max_duration_ms=10000, stall_timeout_ms=1000),
            SESSION_LIMIT_S)


def of_type(recording: SessionRecording, kind: str) -> list[dict[str, Any]]:
    return [event.report_dict() for event in recording.events if event.type == kind]


def stalled_ms(recording: SessionRecording, start_ms: float = 0.0,
               stop_ms: float | None = None, frame_ms: int = 20) -> float:
    """How long the event loop was held up in this run while the frames due in
    [start_ms, stop_ms) were sent, as the sender saw it: their send lateness beyond the
    timer's own jitter (``JITTER_MS``), summed.

    Real-clock tests use it to widen a wall-clock allowance by exactly the lateness the
    machine added in the same run, so they hold on a loaded machine and stay tight on a
    quiet one. Frames leave on absolute deadlines, so a stall of D ms shows as lateness
    on every frame due during it (D, D - 20, ...): the sum is at least D for any stall
    that crosses a deadline, and a delay the code adds itself (an ``await`` that waits,
    a packet held back) leaves the loop free and adds nothing here, so a test widened
    by it still fails on such a delay.
    """
    lateness = np.asarray(recording.send_lateness_ms, dtype=float)
    due = np.arange(lateness.size) * frame_ms
    chosen = (due >= start_ms) & (due < (np.inf if stop_ms is None else stop_ms))
    return float(np.clip(lateness[chosen] - JITTER_MS, 0.0, None).sum())


def agent_stream(recording: SessionRecording) -> NDArray[np.int16]:
    """The agent's audio as it sent it, packet after packet, read back from the recorded
    track at the places the playout buffer put each packet (its ``audio`` events).

    Positions in it are the agent's own audio time, which no scheduling moves: where the
    track has a gap because a packet arrived late, this stream has none. Only for runs
    in which no clear dropped audio (one that does cuts packets short in the track).
    """
    clears = of_type(recording, "clear") + of_type(recording, "speech_started")
    assert all(float(clear["dropped_ms"]) == 0 for clear in clears), clears
    pieces = []
    for packet in of_type(recording, "audio"):
        placed = round(recording.sample_rate * float(packet["placed_ms"]) / 1000)
        pieces.append(recording.agent[placed : placed + int(packet["samples"])])
    return np.concatenate(pieces) if pieces else np.zeros(0, np.int16)
