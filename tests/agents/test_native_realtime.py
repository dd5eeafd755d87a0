"""native-realtime against the local full-duplex agent.

Timing arithmetic (16 kHz, 20 ms user frames, 80 ms appends): append k carries user
audio [80k, 80k + 80) and leaves with the frame [80k + 60, 80k + 80), at 80k + 60 ms.
The duplex agent answers each append with 80 ms of its own output (speech or silence),
so its stream starts playing at ~60 ms and agent audio time x plays at ~x + 60 ms.

* user speech 0..500 ms: endpoint after [790, 800), reply due at 1000 ms of agent audio
  time, heard in the track at ~1060 ms;
* barge-in at 1500 ms: 100 ms of overlap after [1590, 1600), stop 100 ms later at
  1700 ms, i.e. silence from ~1760 ms in the track.
"""

from __future__ import annotations

import asyncio

import numpy as np

from speecheval.agents.local import LocalAgentServer
from speecheval.agents.local.server import AgentLog
from speecheval.agents.registry import open_transport
from speecheval.session.realtime import run_realtime
from speecheval.session.recording import SessionRecording

from .helpers import RATE, SESSION_LIMIT_S, of_type, track

SLACK_MS = 60  # loopback delivery and scheduling on a shared 2-core machine


def _first_sound_ms(agent: np.ndarray, from_ms: int) -> float:
    index = RATE * from_ms // 1000 + int(np.flatnonzero(agent[RATE * from_ms // 1000 :])[0])
    return index * 1000 / RATE


def test_appends_on_an_absolute_80_ms_schedule_and_continuous_output() -> None:
    user = track(("speech", 500), ("silence", 1000), ("speech", 400), ("silence", 600))

    async def run() -> tuple[SessionRecording, AgentLog]:
        async with LocalAgentServer("duplex", "native-realtime",
                                    {"voice": "synthetic"}) as agent:
            transport = open_transport("native-realtime", {"url": agent.url})
            recording = await asyncio.wait_for(
                run_realtime(transport, user, RATE, frame_ms=20, tail_ms=200), SESSION_LIMIT_S)
            await asyncio.sleep(0.05)  # let the agent read the end-of-input event
            return recording, agent.log

    recording, log = asyncio.run(run())
    assert recording.fault is None
    # 2700 ms = 33.75 appends of 80 ms: 33 full ones (2560 bytes each), then the rest
    # (0.75 * 2560 = 1920 bytes) flushed with the end of input
    sizes = [size for _, size in log.appends]
    assert sizes == [2560] * 33 + [1920]
    # arrival of append k minus 80k ms: constant on an absolute schedule (the first may
    # wait while the agent renders its replies), with no drift from first half to second
    arrivals = np.array([t for t, _ in log.appends[:33]]) * 1000 - 80 * np.arange(33)
    offsets = arrivals - np.median(arrivals)
    assert np.percentile(np.abs(offsets), 80) < 5
    assert abs(np.median(offsets[1:17]) - np.median(offsets[17:])) < 2
    assert log.controls[-1] == {"type": "input_audio_buffer.end"}
    update = log.controls[0]
    assert update["type"] == "session.update"
    assert update["session"]["turn_detection"] is None
    assert update["session"]["sample_rate"] == RATE
    # continuous output: one 80 ms packet per append, silence included
    packets = of_type(recording, "audio")
    assert len(packets) >= 30 and {p["samples"] for p in packets} == {1280}
    onset = _first_sound_ms(recording.agent, 0)
    assert 1060 - 20 <= onset < 1060 + SLACK_MS
    agent = recording.agent
    assert np.abs(agent[RATE * 1200 // 1000 : RATE * 1700 // 1000]).max() > 1000
    silent_from = RATE * (1760 + SLACK_MS) // 1000
    assert not agent[silent_from : RATE * 2300 // 1000].any()
