"""pcm-websocket against our local turn agent and against voicebench's mock-server.

Timing arithmetic (16 kHz, 20 ms frames, agent defaults: endpoint 300 ms, delay 200 ms,
barge-in after 100 ms of overlap, reaction 100 ms). The agent keeps audio time in 10 ms
analysis frames; frame [a, a+20) of the user track leaves the client at wall time a.

* user speech 0..500 ms; silence frames from 500 ms reach 300 ms after [790, 800), so
  the reply is due at 800 + 200 = 1000 ms and starts with analysis frame [1000, 1010),
  which travels in user frame [1000, 1020), sent at 1000 ms: first agent audio ~1000 ms.
* user barges in at 1500 ms: 100 ms of overlap after [1590, 1600), stop due at
  1600 + 100 = 1700 ms, i.e. in user frame [1700, 1720) sent at 1700 ms: clear ~1700 ms.
* that speech (1500..1900) is the next turn: reply due 1900 + 300 + 200 = 2400 ms.
"""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from speecheval.agents.registry import open_transport
from speecheval.session.record.recording import SessionRecording
from speecheval.session.run.realtime import run_realtime

from .helpers import RATE, SESSION_LIMIT_S, of_type, session, stalled_ms, track

LOOPBACK_SLACK_MS = 60  # delivery + scheduling on a shared, busy 2-core machine


def _speech_ms(agent: np.ndarray, start_ms: int, stop_ms: int) -> int:
    """How many 10 ms frames in [start, stop) hold any agent audio."""
    frames = agent[RATE * start_ms // 1000 : RATE * stop_ms // 1000].reshape(-1, RATE // 100)
    return int(np.count_nonzero(np.abs(frames).max(axis=1))) * 10


def test_reply_barge_in_clear_and_transcripts() -> None:
    user = track(("speech", 500), ("silence", 1000), ("speech", 400), ("silence", 1100))
    recording = asyncio.run(session("pcm-websocket", user,
                                     agent_options={"transcripts": "hello|again"}))
    assert recording.fault is None
    # Each wall-clock allowance below widens by the loop's stalls measured in this run
    # up to that instant (helpers.stalled_ms): ~0 on a quiet machine, so an agent or a
    # client that adds a delay of its own still fails them.
    audio = of_type(recording, "audio")
    first, first_stall = float(audio[0]["t_ms"]), stalled_ms(recording, 0, 1000)
    assert 1000 <= first < 1000 + LOOPBACK_SLACK_MS + first_stall, (first, first_stall)
    clears = of_type(recording, "clear")
    assert len(clears) == 1
    cleared, clear_stall = float(clears[0]["t_ms"]), stalled_ms(recording, 0, 1700)
    assert 1700 <= cleared < 1700 + LOOPBACK_SLACK_MS + clear_stall, (cleared, clear_stall)
    # paced agent: at most a packet or two was buffered when the clear came, plus the
    # packets that piled up while the loop stalled since the reply started (they are
    # placed one after another when the loop wakes)
    buffered_stall = stalled_ms(recording, 1000, cleared)
    assert float(clears[0]["dropped_ms"]) <= 40 + buffered_stall, (clears[0], buffered_stall)
    # agent audible from the reply until the clear, silent until the second reply; the
    # edges move late by the stalls before them (rounded up to the 10 ms frames counted)
    agent = recording.agent
    late = 10 * math.ceil(first_stall / 10)
    assert _speech_ms(agent, 1040 + late, 1690) == 650 - late
    late = 10 * math.ceil(clear_stall / 10)
    assert _speech_ms(agent, 1700 + LOOPBACK_SLACK_MS + 20 + late, 2400) == 0
    # silent up to 2400 ms (above), so audio from there on is the second reply
    assert _speech_ms(agent, 2400, 3300) > 0
    texts = [(e["role"], e["text"], e["final"]) for e in of_type(recording, "transcript")]
    assert texts == [("user", "hello", True), ("user", "again", True)]
    # user track exactly as sent: the scripted audio, then 300 ms of tail silence
    assert recording.user.size == user.size + RATE * 300 // 1000
    np.testing.assert_array_equal(recording.user[: user.size], user)
    assert recording.agent.size == recording.user.size
    assert len(recording.send_lateness_ms) == recording.user.size // (RATE // 50)


def test_against_voicebench_mock_server() -> None:
    """Our client against voicebench 0.2.0's own server (PyPI), on 127.0.0.1.

    voicebench's mock agent runs on its own per-frame wall clock: silence reaches its
    300 ms endpoint after frame [780, 800) (t = 0.78 s), so the reply is due at
    0.78 + 0.02 + 0.4 s (response_delay_ms) = 1.2 s and starts with the frame sent at
    1.2 s. A barge-in at 1.5 s: 100 ms of overlap after frame [1580, 1600), stop due
    1.6 + 0.15 s = 1.75 s, sent as a clear with the frame at 1.76 s. The mock's clock
    starts when it accepts the connection, a little before ours, and the machine is
    shared, so either instant may move by one 20 ms frame.
    """
    mock_server = pytest.importorskip("voicebench.mock_server")
    user = track(("speech", 500), ("silence", 1000), ("speech", 400), ("silence", 600))

    async def run() -> SessionRecording:
        server = await mock_server.start_server(
            "127.0.0.1", 0, RATE, {"transcripts": ["what time is it"]})
        try:
            port = next(iter(server.sockets)).getsockname()[1]
            transport = open_transport("pcm-websocket", {"url": f"ws://127.0.0.1:{port}"})
            return await asyncio.wait_for(
                run_realtime(transport, user, RATE, frame_ms=20, tail_ms=200), SESSION_LIMIT_S)
        finally:
            server.close()
            await server.wait_closed()

    recording = asyncio.run(run())
    assert recording.fault is None
    audio = of_type(recording, "audio")
    # due at 1.2 s; the frame at 1.22 s when the mock's clock ran a hair behind ours; the
    # allowances widen by the loop's stalls in this run up to then (helpers.stalled_ms):
    # the mock answers the frames it is sent, and a stalled sender sends them late
    first, first_stall = float(audio[0]["t_ms"]), stalled_ms(recording, 0, 1220)
    assert 1200 <= first < 1220 + LOOPBACK_SLACK_MS + first_stall, (first, first_stall)
    clears = of_type(recording, "clear")
    assert len(clears) == 1
    cleared, clear_stall = float(clears[0]["t_ms"]), stalled_ms(recording, 0, 1780)
    assert 1740 <= cleared < 1780 + LOOPBACK_SLACK_MS + clear_stall, (cleared, clear_stall)
    texts = [e["text"] for e in of_type(recording, "transcript")]
    assert texts == ["what time is it"]
