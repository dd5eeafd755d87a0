"""Agents that send JSON too deep or too long to build, over the three socket protocols.

The agent of :mod:`hostile.deep_json` echoes five of the user's 20 ms frames, then sends
the hostile message, then echoes on. The message must end the session as a fault that
names it, with the five echoed frames kept: a receive loop that died on it instead would
leave a recording without a fault whose agent track stops at the fifth frame.
"""

from __future__ import annotations

import asyncio

import pytest
from hostile.deep_json import (
    DEPTH,
    DeepJsonAgent,
    JsonAnswerServer,
    deep_array,
    deep_event,
    long_string_event,
)
from hostile.silent_handshake import SilentServer

from speecheval.agents.registry import open_transport
from speecheval.agents.webrtc import post_json
from speecheval.core.errors import SystemUnderTestError
from speecheval.core.peer_json import MAX_CHARS
from speecheval.session.record.recording import SessionRecording
from speecheval.session.run.realtime import run_realtime

from .helpers import RATE, SESSION_LIMIT_S, of_type, track

FRAME = RATE * 20 // 1000  # 320 samples in a 20 ms frame
OPTIONS = {"pcm-websocket": {}, "openai-realtime": {"api_key_env": "",
                                                     "transcription_model": ""},
           "native-realtime": {"input_rate": "16000", "output_rate": "16000"}}


def _run(protocol: str, url: str) -> SessionRecording:
    transport = open_transport(protocol, {"url": url, **OPTIONS[protocol]})
    user = track(("speech", 600), ("silence", 400))
    return asyncio.run(asyncio.wait_for(
        run_realtime(transport, user, RATE, frame_ms=20, tail_ms=200, max_duration_ms=5000),
        SESSION_LIMIT_S))


def _payload(protocol: str) -> str:
    """Bare nested arrays for the raw protocol, an audio delta whose ``delta`` is nested
    arrays for the two realtime ones (so only the nesting is wrong)."""
    if protocol == "pcm-websocket":
        return deep_array()
    return deep_event("response.output_audio.delta")


@pytest.mark.parametrize("protocol", sorted(OPTIONS))
def test_a_deep_message_mid_stream_is_a_fault_and_the_audio_before_it_is_kept(
        protocol: str) -> None:
    payload = _payload(protocol)
    with DeepJsonAgent(protocol, payload, after=5) as agent:
        recording = _run(protocol, agent.url)
    # the limit of 64 levels is passed where the 65th level opens: the 65th "[" of bare
    # arrays, char 64; in the event, the object is the first level and 49 characters
    # ('{"type": "response.output_audio.delta", "delta": ') come before the arrays, so the
    # 64th "[", char 49 + 63 = 112 (and one "}" closes it)
    position = 64 if protocol == "pcm-websocket" else 112
    assert len(payload) == 2 * DEPTH + (0 if protocol == "pcm-websocket" else 49 + 1)
    reason = (f"agent sent JSON nested deeper than 64 levels at char {position}: "
              f"{payload[:60]!r}")
    assert recording.fault == reason
    assert [e["reason"] for e in of_type(recording, "fault")] == [reason]
    # the five packets echoed before the message reached the agent track, and nothing
    # after them; the wire rate is the session's for the raw and native protocols, so
    # they are what the client sent: 20 ms frames (320 samples) raw, and native appends of
    # chunk_ms = 80 ms (1280 samples)
    packets = of_type(recording, "audio")
    if protocol != "openai-realtime":
        size = FRAME if protocol == "pcm-websocket" else 4 * FRAME
        assert [p["samples"] for p in packets] == [size] * 5
    else:  # 24 kHz on the wire, resampled to 16 kHz as it streams: some audio, then none
        assert 0 < sum(p["samples"] for p in packets) <= 5 * FRAME
    # the session ended at the fault, not after the 1.2 s of user track and tail
    assert recording.user.size < RATE
    assert agent.connections[0].attacked


@pytest.mark.parametrize("protocol", sorted(OPTIONS))
def test_a_message_past_the_size_limit_is_a_fault(protocol: str) -> None:
    payload = long_string_event(MAX_CHARS + 1)
    with DeepJsonAgent(protocol, payload, after=3) as agent:
        recording = _run(protocol, agent.url)
    # the client refuses the message as it arrives (16 Mi + 1 bytes, limit 16 Mi), before
    # it is parsed
    assert recording.fault == (f"agent sent a message of {MAX_CHARS + 1} bytes, more than "
                               f"the limit of {MAX_CHARS} bytes")
    assert [p["samples"] for p in of_type(recording, "audio")][:1] != []


def test_the_deep_payloads_are_what_they_claim() -> None:
    # the standard parser cannot build them: that is what makes them hostile
    import json

    for payload in (deep_array(), deep_event("response.output_audio.delta")):
        with pytest.raises(RecursionError):
            json.loads(payload)
    assert len(long_string_event(100)) == 100
    assert set(json.loads(long_string_event(100))["text"]) == {"a"}


def test_a_deep_webrtc_signalling_answer_is_the_agents_error() -> None:
    with (JsonAnswerServer({"offer": deep_array().encode()}) as server,
          pytest.raises(SystemUnderTestError) as refused):
        post_json(server.url("offer"), {"type": "offer", "sdp": "v=0"}, timeout_s=5)
    assert str(refused.value) == ("signalling: the answer is not JSON (nested deeper than 64 "
                                  "levels at char 64)")


@pytest.mark.parametrize("protocol", sorted(OPTIONS))
def test_a_server_silent_after_accepting_is_a_connect_fault(protocol: str) -> None:
    with SilentServer() as server:
        transport = open_transport(protocol, {"url": server.ws_url, "connect_timeout_s": "0.5",
                                              **OPTIONS[protocol]})
        recording = asyncio.run(asyncio.wait_for(
            run_realtime(transport, track(("speech", 200)), RATE), SESSION_LIMIT_S))
        accepted = server.accepted
    url = server.ws_url + ("?model=gpt-realtime" if protocol == "openai-realtime" else "")
    assert recording.fault == (f"cannot connect to {url}: no answer to the WebSocket "
                               "handshake within 0.5 s")
    assert recording.user.size == 0 and accepted == 1
