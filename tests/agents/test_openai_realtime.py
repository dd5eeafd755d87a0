"""openai-realtime against the local turn agent speaking the OpenAI Realtime protocol.

Timing arithmetic for the truncate test (16 kHz session, 24 kHz on the wire, 20 ms
frames; agent threshold -35 dBFS so the resampler's 0.6 ms filter tail after the
speech is not heard as speech; endpoint 300 ms, delay 200 ms, barge-in after 100 ms):

* user speech 0..500 ms: endpoint after analysis frame [790, 800), reply due
  800 + 200 = 1000 ms; the agent sends the whole reply at once when it hears the user
  frame [1000, 1020), which leaves the client at 1000 ms. Playout starts on arrival.
* user barge-in at 1500 ms: 100 ms of overlap after [1590, 1600), heard in the user
  frame [1580, 1600), sent at 1580 ms: the agent sends input_audio_buffer.speech_started.
* so the user heard 1580 - 1000 = 580 ms of the reply, and the client truncates the
  reply's item at audio_end_ms = 580 (plus or minus the difference of two loopback
  deliveries).
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from speecheval.agents.local import LocalAgentServer
from speecheval.agents.local.server import AgentLog
from speecheval.agents.openai_realtime import OpenAIRealtimeTransport
from speecheval.agents.registry import open_transport
from speecheval.core.canonical_json import dumps
from speecheval.core.errors import InputError
from speecheval.session.realtime import run_realtime
from speecheval.session.recording import SessionRecording

from .helpers import RATE, SESSION_LIMIT_S, of_type, track

KEY_ENV = "SPEECHEVAL_TEST_REALTIME_KEY"
SECRET = "sk-test-do-not-leak-7f3a9c"
DELIVERY_SLACK_MS = 25


async def _run(api: str, user: np.ndarray, agent_options: dict[str, str]
               ) -> tuple[SessionRecording, AgentLog, OpenAIRealtimeTransport]:
    options = {"voice": "synthetic", "threshold_db": "-35", **agent_options}
    async with LocalAgentServer("turn", "openai-realtime", options) as agent:
        transport = open_transport("openai-realtime", {
            "url": agent.url, "api": api, "api_key_env": KEY_ENV})
        recording = await asyncio.wait_for(
            run_realtime(transport, user, RATE, frame_ms=20, tail_ms=300), SESSION_LIMIT_S)
        assert isinstance(transport, OpenAIRealtimeTransport)
        return recording, agent.log, transport


@pytest.mark.parametrize("api", ["ga", "beta"])
def test_barge_in_truncates_at_the_played_milliseconds(api: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    user = track(("speech", 500), ("silence", 1000), ("speech", 400), ("silence", 600))
    recording, log, _ = asyncio.run(_run(api, user, {"transcripts": "book a table"}))
    assert recording.fault is None
    truncates = [c for c in log.controls if c["type"] == "conversation.item.truncate"]
    assert len(truncates) == 1
    truncate = truncates[0]
    assert truncate["item_id"] == "item_agent_1" and truncate["content_index"] == 0
    assert abs(truncate["audio_end_ms"] - 580) <= DELIVERY_SLACK_MS
    # the same number the runner logged: the reply was the first agent audio, so its
    # item starts at played position 0 and audio_end_ms equals played_ms
    barge_in = [e for e in of_type(recording, "speech_started") if e["dropped_ms"] > 0]
    assert len(barge_in) == 1 and barge_in[0]["played_ms"] == truncate["audio_end_ms"]
    # the unplayed rest of the 1500 ms reply was dropped: 1500 - 580 = 920 ms
    assert abs(float(barge_in[0]["dropped_ms"]) - 920) <= DELIVERY_SLACK_MS + 1
    # nothing of the reply is in the agent track after the barge-in
    cut = RATE * (int(barge_in[0]["t_ms"]) + 1) // 1000
    assert not recording.agent[cut : RATE * 2300 // 1000].any()
    # user transcript for WER, and the session the client asked for in this spelling
    assert [e["text"] for e in of_type(recording, "transcript")] == ["book a table"]
    update = next(c for c in log.controls if c["type"] == "session.update")["session"]
    if api == "ga":
        assert update["type"] == "realtime"
        assert update["audio"]["input"]["turn_detection"]["type"] == "server_vad"
        assert update["audio"]["input"]["format"] == {"type": "audio/pcm", "rate": 24000}
        assert "OpenAI-Beta" not in log.headers[0]
    else:
        assert update["input_audio_format"] == "pcm16"
        assert update["turn_detection"]["type"] == "server_vad"
        assert log.headers[0]["OpenAI-Beta"] == "realtime=v1"


def test_api_key_goes_only_into_the_request_header(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    user = track(("speech", 500), ("silence", 900))
    recording, log, transport = asyncio.run(_run("ga", user, {}))
    assert log.authorized == [True]  # the agent did receive a bearer token
    assert recording.fault is None and of_type(recording, "audio")
    written = dumps({"events": [event.to_dict() for event in recording.events],
                     "fault": recording.fault,
                     "describe": transport.describe()})
    assert SECRET not in written
    assert SECRET not in repr(vars(transport))
    assert SECRET.encode() not in recording.user.tobytes() + recording.agent.tobytes()
    assert all(SECRET not in str(value) for value in log.headers[0].values())


def test_missing_key_variable_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    transport = OpenAIRealtimeTransport(url="ws://127.0.0.1:9/v1/realtime",
                                        api_key_env=KEY_ENV)
    with pytest.raises(InputError, match=KEY_ENV):
        asyncio.run(run_realtime(transport, np.zeros(320, np.int16), RATE))


def test_model_is_added_to_the_url_query() -> None:
    transport = OpenAIRealtimeTransport(url="wss://example.test/v1/realtime", model="m-1")
    assert transport._connect_url() == "wss://example.test/v1/realtime?model=m-1"
