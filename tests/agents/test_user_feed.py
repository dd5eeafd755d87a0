"""A live user feed: a turn triggered by the agent's speech, on the real clock."""

from __future__ import annotations

import asyncio

import numpy as np

from speecheval.agents.local.voice import synthetic_speech
from speecheval.agents.registry import open_transport, start_local_agent
from speecheval.session.record.recording import SessionRecording
from speecheval.session.run.realtime import run_realtime

from .helpers import RATE, SESSION_LIMIT_S, of_type

FRAME = RATE // 50  # 20 ms


class BargeInFeed:
    """Say 500 ms, wait; 300 ms after the agent starts talking, interrupt it for 400 ms."""

    def __init__(self) -> None:
        self.script = np.concatenate([synthetic_speech(500, RATE), np.zeros(RATE // 2, np.int16)])
        self.heard = 0  # agent samples seen so far (the played timeline, from 0)
        self.agent_onset: int | None = None
        self.barge_in: np.ndarray | None = None
        self.barge_in_at: int | None = None

    def next_frame(self, index: int, agent_played: np.ndarray) -> np.ndarray | None:
        if self.agent_onset is None and agent_played.any():
            self.agent_onset = self.heard + int(np.flatnonzero(agent_played)[0])
        self.heard += agent_played.size
        start = index * FRAME
        if start + FRAME <= self.script.size:
            return self.script[start : start + FRAME]
        if self.agent_onset is None:
            return np.zeros(FRAME, np.int16) if start < 4 * RATE else None
        if self.barge_in is None:
            # first frame boundary at least 300 ms after the agent's onset
            due = self.agent_onset + RATE * 300 // 1000
            if start < due:
                return np.zeros(FRAME, np.int16)
            self.barge_in_at = start
            self.barge_in = np.concatenate([synthetic_speech(400, RATE),
                                            np.zeros(RATE, np.int16)])
        assert self.barge_in_at is not None
        offset = start - self.barge_in_at
        return self.barge_in[offset : offset + FRAME] if offset < self.barge_in.size else None


def test_agent_triggered_turn() -> None:
    feed = BargeInFeed()

    async def run() -> SessionRecording:
        async with start_local_agent("turn", "pcm-websocket", {"voice": "synthetic"}) as url:
            transport = open_transport("pcm-websocket", {"url": url})
            return await asyncio.wait_for(
                run_realtime(transport, feed, RATE, frame_ms=20, tail_ms=200), SESSION_LIMIT_S)

    recording = asyncio.run(run())
    assert recording.fault is None
    assert feed.agent_onset is not None and feed.barge_in_at is not None
    # the feed saw the agent's onset where the recording has it
    assert feed.agent_onset == int(np.flatnonzero(recording.agent)[0])
    # the barge-in started on the first frame boundary >= onset + 300 ms (4800 samples)
    due = feed.agent_onset + 4800
    assert due <= feed.barge_in_at < due + FRAME
    assert recording.user[feed.barge_in_at : feed.barge_in_at + FRAME].any()
    assert not recording.user[RATE // 2 : feed.barge_in_at].any()
    # and the agent yielded to it: a clear ~200 ms (100 ms overlap + 100 ms reaction) later
    clears = of_type(recording, "clear")
    assert len(clears) == 1
    assert clears[0]["t_ms"] >= feed.barge_in_at * 1000 / RATE + 200
