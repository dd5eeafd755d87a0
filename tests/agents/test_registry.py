"""Finding transports by name or module:Class, and option checking."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from speecheval.agents.local import LocalAgentServer
from speecheval.agents.native_realtime import NativeRealtimeTransport
from speecheval.agents.openai_realtime import OpenAIRealtimeTransport
from speecheval.agents.pcm_websocket import PcmWebSocketTransport
from speecheval.agents.registry import agent_class, open_transport, start_local_agent
from speecheval.core.errors import InputError
from speecheval.session.record.recording import SessionRecording
from speecheval.session.run.realtime import run_realtime

from .helpers import RATE, track


@pytest.mark.parametrize(("name", "cls"), [("pcm-websocket", PcmWebSocketTransport),
                                           ("openai-realtime", OpenAIRealtimeTransport),
                                           ("native-realtime", NativeRealtimeTransport)])
def test_builtin_names(name: str, cls: type) -> None:
    assert isinstance(open_transport(name, {"url": "ws://127.0.0.1:1/x"}), cls)


def test_unknown_option_is_named() -> None:
    with pytest.raises(InputError, match=r"^openai-realtime: option modle: unknown key; allowed "
                                         r"keys are api, api_key_env, connect_timeout_s, "
                                         r"instructions, model, ping_interval_s, "):
        open_transport("openai-realtime", {"modle": "x"})


def test_missing_url_is_an_error() -> None:
    with pytest.raises(InputError, match="option url is required"):
        open_transport("pcm-websocket", {})


@pytest.mark.parametrize("name", ["no-such-agent", "nosuchmodule_xyz:Agent",
                                  "tests.agents.custom_transport:Missing"])
def test_unknown_agents_are_errors(name: str) -> None:
    with pytest.raises(InputError):
        open_transport(name, {})


def test_custom_module_class_runs_in_the_realtime_runner() -> None:
    transport = open_transport("tests.agents.custom_transport:EchoTransport",
                               {"delay_ms": "100"})
    user = track(("speech", 300), ("silence", 300))
    recording = asyncio.run(run_realtime(transport, user, RATE, frame_ms=20, tail_ms=0))
    assert recording.fault is None
    # the echo of frame [0, 20) arrives ~100 ms later and plays from there
    onset = int(np.flatnonzero(recording.agent)[0]) * 1000 / RATE
    assert 100 <= onset < 160
    assert len(recording.send_lateness_ms) == 30  # 600 ms in 20 ms frames


def test_connection_refused_is_a_recorded_fault() -> None:
    async def run() -> SessionRecording:
        async with start_local_agent("turn", "pcm-websocket", {}) as url:
            pass  # the agent is gone once the block ends
        transport = open_transport("pcm-websocket", {"url": url, "connect_timeout_s": "2"})
        return await run_realtime(transport, np.zeros(320, np.int16), RATE)

    recording = asyncio.run(run())
    assert recording.fault is not None and recording.fault.startswith("cannot connect to ws://")
    assert recording.user.size == 0 and recording.agent.size == 0


@pytest.mark.parametrize(("kind", "protocol", "options", "message"), [
    ("turn", "native-realtime", {}, "combination"),
    ("turn", "pcm-websocket", {"output_rate": "24000"}, "the duplex protocols only"),
    ("turn", "pcm-websocket", {"deny": "supports_barge_in"}, "vllm-omni-duplex only"),
    ("duplex", "native-realtime", {"transcripts": "hi"}, "not part of the native protocol"),
    ("turn", "pcm-websocket", {"fault": "explode"}, "option fault: must be one of"),
    ("turn", "pcm-websocket", {"colour": "red"}, "option colour: unknown key; allowed keys are"),
    ("turn", "pcm-websocket", {"sample_rate": "fast"},
     "option sample_rate: must be a whole number, got .fast."),
    ("turn", "pcm-websocket", {"interruptible": "maybe"},
     "option interruptible: must be true or false"),
])
def test_local_agent_rejects_bad_settings(kind: str, protocol: str, options: dict[str, str],
                                          message: str) -> None:
    async def run() -> None:
        async with start_local_agent(kind, protocol, options):
            pass

    with pytest.raises(InputError, match=message):
        asyncio.run(run())


def test_pcm_headers_and_start_message_must_be_json_objects() -> None:
    with pytest.raises(InputError, match="headers is not JSON"):
        open_transport("pcm-websocket", {"url": "ws://x", "headers": "{'a': 1}"})
    with pytest.raises(InputError, match="start_message must be a JSON object"):
        open_transport("pcm-websocket", {"url": "ws://x", "start_message": "[1]"})
    transport = open_transport("pcm-websocket", {"url": "ws://x",
                                                 "headers": '{"X-Token": "secret-9"}'})
    assert isinstance(transport, PcmWebSocketTransport)
    assert "secret-9" not in repr(transport.describe())


def test_pcm_headers_reach_the_agent() -> None:
    async def run() -> list[dict[str, str]]:
        async with LocalAgentServer("turn", "pcm-websocket", {"voice": "synthetic"}) as agent:
            transport = open_transport("pcm-websocket", {"url": agent.url,
                                                         "headers": '{"X-Session": "abc"}'})
            await run_realtime(transport, np.zeros(320, np.int16), RATE, tail_ms=0)
            return agent.log.headers

    assert asyncio.run(run())[0]["X-Session"] == "abc"


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_transport_numbers_must_be_finite(value: str) -> None:
    with pytest.raises(InputError, match=rf"^pcm-websocket: option ping_interval_s: must be a "
                                         rf"finite number >= 0, got '{value}'$"):
        open_transport("pcm-websocket", {"url": "ws://127.0.0.1:9", "ping_interval_s": value})


@pytest.mark.parametrize(("name", "options", "message"), [
    ("pcm-websocket", {"connect_timeout_s": "soon"},
     "pcm-websocket: option connect_timeout_s: must be a number, got 'soon'"),
    ("pcm-websocket", {"agent_sample_rate": "0"},
     "pcm-websocket: option agent_sample_rate: must be a positive whole number, got '0'"),
    ("native-realtime", {"chunk_ms": "80.5"},
     "native-realtime: option chunk_ms: must be a positive whole number, got '80.5'"),
    ("openai-realtime", {"api": "v2"},
     "openai-realtime: option api: must be one of 'ga' or 'beta', got 'v2'"),
    ("openai-realtime", {"vad_threshold": "-0.5"},
     "openai-realtime: option vad_threshold: must be a finite number >= 0, got '-0.5'"),
])
def test_bad_transport_option_values_are_named(name: str, options: dict[str, str],
                                               message: str) -> None:
    with pytest.raises(InputError) as caught:
        open_transport(name, {"url": "ws://127.0.0.1:9", **options})
    assert str(caught.value) == message


def test_transport_options_are_parsed_from_text() -> None:
    transport = open_transport("openai-realtime", {"vad_prefix_padding_ms": "250",
                                                   "ping_timeout_s": "2.5"})
    assert isinstance(transport, OpenAIRealtimeTransport)
    assert transport.turn_detection == {"type": "server_vad", "threshold": 0.5,
                                        "prefix_padding_ms": 250, "silence_duration_ms": 500}
    assert transport.ping_timeout_s == 2.5 and transport.api == "ga"


@pytest.mark.parametrize(("name", "message"), [
    # a class with the right methods that does not subclass a base: its clock is unknown
    ("tests.agents.custom_transport:NotAnAgent", "NotAnAgent is not an agent; subclass"),
    # a subclass that lacks the abstract methods: named, before any constructor runs
    ("tests.agents.custom_transport:HalfTransport",
     "HalfTransport does not implement close, connect, end_input, events, report_played, "
     "send_audio"),
    # a virtual-clock agent is not a transport
    ("tests.agents.custom_transport:LeakyVirtualAgent", "runs on the virtual clock"),
])
def test_classes_that_are_not_transports_are_named(name: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        open_transport(name, {})


def test_the_class_attribute_says_the_clock() -> None:
    assert agent_class("pcm-websocket").clock == "real"
    assert agent_class("tests.agents.custom_transport:EchoTransport").clock == "real"
    assert agent_class("tests.agents.custom_transport:LateFailingAgent").clock == "virtual"


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_webrtc_signalling_timeout_must_be_finite(value: str) -> None:
    # webrtc checked its own options with float(), which took "nan" and "inf": the
    # session then failed inside aiortc (exit 3) instead of exiting 2 here
    with pytest.raises(InputError) as caught:
        open_transport("webrtc", {"url": "http://127.0.0.1:9/", "signalling_timeout_s": value})
    assert str(caught.value) == (f"webrtc: option signalling_timeout_s: must be a finite "
                                 f"number >= 0, got '{value}'")


def test_webrtc_options_are_read_as_the_other_transports_are() -> None:
    transport = open_transport("webrtc", {"url": "http://127.0.0.1:9/offer",
                                          "signalling_timeout_s": "2.5"})
    assert transport.timeout_s == 2.5  # type: ignore[attr-defined]
    assert open_transport("webrtc", {"url": "http://h/"}).timeout_s == 10.0  # type: ignore[attr-defined]
    with pytest.raises(InputError) as caught:
        open_transport("webrtc", {"url": "http://h/", "signalling_timeout_s": "soon"})
    assert str(caught.value) == ("webrtc: option signalling_timeout_s: must be a number, "
                                 "got 'soon'")
