"""Shared pieces of the agent tests: user tracks with known timing, and a runner call."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from speecheval.agents.local.voice import synthetic_speech
from speecheval.agents.registry import open_transport, start_local_agent
from speecheval.session.realtime import run_realtime
from speecheval.session.recording import SessionRecording

RATE = 16000
SESSION_LIMIT_S = 15.0  # no test session may take longer than this: a hang is a failure


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
    return [event.to_dict() for event in recording.events if event.type == kind]
