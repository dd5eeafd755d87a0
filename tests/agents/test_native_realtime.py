"""native-realtime (SGLang-Omni's full-duplex protocol) against the local full-duplex agent.

The local agent checks every client event as SGLang-Omni's server does and answers a
violation with a non-fatal ``error`` (logged in ``AgentLog.rejections``), which the
client turns into a fault; so a session without a fault and without rejections is one
in which the client spoke the protocol correctly.

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
import base64
import json
from typing import Any

import numpy as np
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.protocol import State

from speecheval.agents.base import AgentFault, Transcript
from speecheval.agents.local import LocalAgentServer
from speecheval.agents.local.server import AgentLog
from speecheval.agents.native_realtime import NativeDecoder, NativeRealtimeTransport
from speecheval.agents.registry import open_transport
from speecheval.session.record.recording import SessionRecording
from speecheval.session.run.realtime import run_realtime

from .helpers import RATE, SESSION_LIMIT_S, agent_stream, of_type, stalled_ms, track

SLACK_MS = 60  # loopback delivery and scheduling on a shared 2-core machine
REPLY = "Sure, I can help you with that right away."  # the local agent's default reply


def _first_sound_ms(agent: np.ndarray, from_ms: int) -> float:
    index = RATE * from_ms // 1000 + int(np.flatnonzero(agent[RATE * from_ms // 1000 :])[0])
    return index * 1000 / RATE


def _check_reply_onset(recording: SessionRecording) -> None:
    """The reply starts at 1000 ms of the agent's own audio time, and is heard in the
    track ~60 ms later (the first append's round trip), plus what the loop's stalls in
    this run added: the first is a position in the audio the agent sent, whatever the
    scheduling; the second is wall clock, its allowance widened by the measured stalls
    (on a quiet machine ~0, so a client that holds agent audio back still fails)."""
    onset = _first_sound_ms(recording.agent, 0)
    agent_time_ms = _first_sound_ms(agent_stream(recording), 0)
    print(f"reply onset: {agent_time_ms} ms of agent audio, {onset} ms in the track")
    # the reply is due at 1000 ms; the agent starts it on its next 10 ms analysis frame at
    # its input rate (resampled, the filter may ring a sample before it)
    assert 1000 - 1 <= agent_time_ms < 1000 + 20, agent_time_ms
    stall = stalled_ms(recording, 0, onset)
    assert 1060 - 20 <= onset < 1060 + SLACK_MS + stall, (onset, stall)


async def _session(user: np.ndarray, agent_options: dict[str, str],
                   transport_options: dict[str, str] | None = None, tail_ms: int = 200,
                   ) -> tuple[SessionRecording, AgentLog, NativeRealtimeTransport]:
    async with LocalAgentServer("duplex", "native-realtime",
                                {"voice": "synthetic", **agent_options}) as agent:
        transport = open_transport("native-realtime",
                                   {"url": agent.url, **(transport_options or {})})
        assert isinstance(transport, NativeRealtimeTransport)
        recording = await asyncio.wait_for(
            run_realtime(transport, user, RATE, frame_ms=20, tail_ms=tail_ms), SESSION_LIMIT_S)
        return recording, agent.log, transport


def test_appends_on_an_absolute_80_ms_schedule_and_continuous_output() -> None:
    user = track(("speech", 500), ("silence", 1000), ("speech", 400), ("silence", 600))
    recording, log, _ = asyncio.run(_session(user, {}))
    assert recording.fault is None
    assert log.rejections == []
    # 2700 ms = 33.75 appends of 80 ms: 33 full ones (2560 bytes each), then the rest
    # (0.75 * 2560 = 1920 bytes) flushed with the end of input
    sizes = [size for _, size in log.appends]
    assert sizes == [2560] * 33 + [1920]
    # event 1 is session.update, appends are events 2..35 with seq 0..33 and a media
    # time of 80 ms per append before them (1280 samples / 16 kHz)
    assert log.append_meta == [{"event_id": f"speecheval_{k + 2}", "seq": k,
                                "t_start_ms": 80.0 * k} for k in range(34)]
    # arrival of append k minus 80k ms: constant on an absolute schedule (the first may
    # wait while the agent renders its replies), with no drift from first half to second
    arrivals = np.array([t for t, _ in log.appends[:33]]) * 1000 - 80 * np.arange(33)
    offsets = arrivals - np.median(arrivals)
    # Both allowances widen by how late the sender itself was in this run (p80 of the
    # lateness of the frame that completes each append, k * 4 + 3): on a quiet machine
    # ~0.5 ms, so 5 and 2 ms as before; under load the agent, on the same loop, hears
    # each append late by about as much. A relative schedule (each frame timed from the
    # previous send) adds its lateness up instead: 64 frames between the halves' medians.
    late = np.percentile(np.clip(np.asarray(recording.send_lateness_ms)[4 * np.arange(33) + 3],
                                 0, None), 80)
    assert np.percentile(np.abs(offsets), 80) < 5 + late, (offsets, late)
    assert abs(np.median(offsets[1:17]) - np.median(offsets[17:])) < 2 + late, (offsets, late)
    # no turn detection, audio output, and no formats: the granted rates are adopted
    assert log.controls == [
        {"type": "session.update", "event_id": "speecheval_1",
         "session": {"type": "realtime", "output_modalities": ["audio"],
                     "audio": {"input": {"turn_detection": None}}}},
        {"type": "sglang.input_audio.end", "event_id": "speecheval_36"},
        {"type": "session.close", "event_id": "speecheval_37"},
    ]
    assert of_type(recording, "close_error") == []  # the agent answered session.closed
    # continuous output: one 80 ms packet per append, silence included
    packets = of_type(recording, "audio")
    assert len(packets) >= 30 and {p["samples"] for p in packets} == {1280}
    _check_reply_onset(recording)
    # speaking, then silent after the barge-in: in the agent's own audio time (the track's
    # times less the ~60 ms round trip), which no scheduling moves
    agent = agent_stream(recording)
    assert np.abs(agent[RATE * 1140 // 1000 : RATE * 1640 // 1000]).max() > 1000
    silent_from = RATE * (1700 + SLACK_MS) // 1000
    assert not agent[silent_from : RATE * 2240 // 1000].any()
    # the agent's words arrive as transcript deltas when its reply starts
    words = [(e["role"], e["text"], e["final"]) for e in of_type(recording, "transcript")]
    assert words[0] == ("agent", REPLY, False)


@pytest.mark.parametrize(("in_rate", "out_rate"), [(16000, 24000), (24000, 24000)])
def test_granted_rates_are_adopted_and_model_goes_in_the_query(in_rate: int,
                                                               out_rate: int) -> None:
    # deployments like MiniCPM-o (16 kHz in, 24 kHz out) and PersonaPlex (24 kHz both);
    # the session runs at 16 kHz and the client resamples both ways
    user = track(("speech", 500), ("silence", 1000))
    recording, log, transport = asyncio.run(_session(
        user, {"sample_rate": str(in_rate), "output_rate": str(out_rate)}, {"model": "omni m"}))
    assert recording.fault is None and log.rejections == []
    assert log.paths == ["/v1/realtime?model=omni+m"]
    assert transport.granted["input_audio_format"] == {"type": "audio/pcm", "rate": in_rate}
    assert transport.granted["output_audio_format"] == {"type": "audio/pcm", "rate": out_rate}
    # 80 ms appends at the input rate (2 bytes per sample), media time 80 ms each;
    # 1500 ms of track + 200 ms tail = 21.25 appends, the last a quarter one
    chunk = 2 * in_rate * 80 // 1000
    assert [size for _, size in log.appends] == [chunk] * 21 + [chunk // 4]
    assert [m["t_start_ms"] for m in log.append_meta] == [80.0 * k for k in range(22)]
    # each 80 ms delta is 1920 samples at 24 kHz; streamed resampling yields exactly
    # ceil(1920 k * 2 / 3) = 1280 k samples after k deltas, so 1280 per packet
    packets = of_type(recording, "audio")
    assert len(packets) >= 15 and {p["samples"] for p in packets} == {1280}
    _check_reply_onset(recording)
    stream = agent_stream(recording)  # the agent's own audio time: the track's less ~60 ms
    assert np.abs(stream[RATE * 1140 // 1000 : RATE * 1340 // 1000]).max() > 1000


def test_a_rate_the_deployment_lacks_is_refused_at_connect() -> None:
    async def run() -> tuple[SessionRecording, AgentLog, State]:
        async with LocalAgentServer("duplex", "native-realtime",
                                    {"voice": "synthetic"}) as agent:
            transport = open_transport("native-realtime",
                                       {"url": agent.url, "input_rate": "24000"})
            assert isinstance(transport, NativeRealtimeTransport)
            recording = await run_realtime(transport, track(("speech", 200)), RATE)
            # checked while the agent still serves: the refused client hung up itself
            return recording, agent.log, transport._connection().state

    recording, log, state = asyncio.run(run())
    assert recording.fault == (
        "native-realtime: agent refused the session while waiting for session.updated: "
        "invalid_request_error: invalid_request: unsupported PCM format or sample rate "
        "(param session.audio.input.format)")
    assert recording.user.size == 0 and log.appends == []
    assert state is State.CLOSED


def test_decoder_native_events() -> None:
    decoder = NativeDecoder(24000, 16000, implied_rate=24000)
    assert decoder.decode({"type": "response.output_audio_transcript.delta",
                           "delta": "Hello"}) == Transcript("agent", "Hello", final=False)
    assert decoder.decode({"type": "session.closed", "reason": "context_limit"}) == AgentFault(
        "agent closed the session: context_limit")
    for ignored in ("sglang.input_audio.accepted", "sglang.unit.done", "response.created"):
        assert decoder.decode({"type": ignored}) is None


async def _rpc(ws: ClientConnection, event: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(event))
    reply: dict[str, Any] = json.loads(await ws.recv())
    return reply


def _append(event_id: str, samples: int, **meta: Any) -> dict[str, Any]:
    audio = base64.b64encode(np.zeros(samples, "<i2").tobytes()).decode()
    return {"type": "input_audio_buffer.append", "event_id": event_id, "audio": audio,
            "sglang": meta}


def test_local_agent_refuses_what_sglang_omni_refuses() -> None:
    async def run() -> list[tuple[str, str | None]]:
        seen: list[tuple[str, str | None]] = []

        async def note(ws: ClientConnection, event: dict[str, Any]) -> dict[str, Any]:
            reply = await _rpc(ws, event)
            seen.append((reply["type"], reply.get("error", {}).get("code")))
            return reply

        async with (LocalAgentServer("duplex", "native-realtime", {"voice": "synthetic"})
                    as agent, connect(agent.url) as ws):
            created = json.loads(await ws.recv())
            assert created["type"] == "session.created"
            await note(ws, _append("a0", 1280, seq=0, t_start_ms=0.0))  # not OPEN yet
            await note(ws, {"type": "session.update", "session": {}})  # no event_id
            await note(ws, {"type": "session.update", "event_id": "u0", "session": {
                "audio": {"input": {"turn_detection": {"type": "server_vad"}}}}})
            updated = await note(ws, {"type": "session.update", "event_id": "u1",
                                      "session": {"output_modalities": ["audio"]}})
            granted = updated["session"]["sglang"]["granted"]
            assert granted["native_full_duplex"] is True
            assert updated["client_event_id"] == "u1"
            await note(ws, _append("a1", 1280, seq=1, t_start_ms=0.0))  # seq gap
            await note(ws, _append("a2", 1280, seq=0, t_start_ms=5.0))  # media time
            await note(ws, {**_append("a3", 1280, seq=0), "extra": 1})  # unknown field
            await note(ws, {"type": "response.cancel", "event_id": "c0"})  # not granted
            accepted = await note(ws, _append("a4", 1280, seq=0, t_start_ms=0.0))
            # 1280 samples at 16 kHz = 80 ms
            assert accepted["accepted_end_ms"] == 80.0 and accepted["seq"] == 0
            # the call's one response starts with the agent's 80 ms answer to it
            assert json.loads(await ws.recv())["type"] == "response.created"
            delta = json.loads(await ws.recv())
            assert delta["type"] == "response.output_audio.delta"
            assert len(base64.b64decode(delta["delta"])) == 2560  # 80 ms at 16 kHz
            ended = await note(ws, {"type": "sglang.input_audio.end", "event_id": "e0"})
            assert ended["accepted_end_ms"] == 80.0
            drained = json.loads(await ws.recv())
            assert drained["type"] == "sglang.input_audio.drained"
            while (json.loads(await ws.recv()))["type"] != "response.done":
                pass
            await note(ws, _append("a5", 1280, seq=1, t_start_ms=80.0))  # after end
            closed = await note(ws, {"type": "session.close", "event_id": "x0"})
            assert closed["reason"] == "client_closed"
            await ws.wait_closed()
        assert len(agent.log.rejections) == 8
        return seen

    assert asyncio.run(run()) == [
        ("error", "invalid_state"),          # append before session.updated
        ("error", "invalid_request"),        # no event_id
        ("error", "not_applicable"),         # VAD on a native session
        ("session.updated", None),
        ("error", "invalid_state"),          # seq must count 0, 1, 2, ...
        ("error", "invalid_state"),          # t_start_ms must be the audio already sent
        ("error", "invalid_request"),        # unknown fields
        ("error", "not_supported"),          # response.cancel: no way to cancel
        ("sglang.input_audio.accepted", None),
        ("sglang.input_audio.ended", None),
        ("error", "invalid_state"),          # audio after the end of input
        ("session.closed", None),
    ]
