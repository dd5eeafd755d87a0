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
import time

import numpy as np
import pytest

from speecheval.agents.local import LocalAgentServer
from speecheval.agents.local.server import AgentLog
from speecheval.agents.openai_realtime import OpenAIRealtimeTransport
from speecheval.agents.registry import open_transport
from speecheval.core.canonical_json import dumps
from speecheval.core.errors import InputError
from speecheval.session.record.recording import SessionRecording
from speecheval.session.run.realtime import run_realtime

from .helpers import RATE, SESSION_LIMIT_S, of_type, track

KEY_ENV = "SPEECHEVAL_TEST_REALTIME_KEY"
SECRET = "sk-test-do-not-leak-7f3a9c"
FRAME_MS = 20  # the frame _run sends the user track in
BARGE_IN_DUE_MS = 1500  # the user's second utterance starts here on the user track


async def _run(api: str, user: np.ndarray, agent_options: dict[str, str]
               ) -> tuple[SessionRecording, AgentLog, OpenAIRealtimeTransport]:
    options = {"voice": "synthetic", "threshold_db": "-35", **agent_options}
    async with LocalAgentServer("turn", "openai-realtime", options) as agent:
        transport = open_transport("openai-realtime", {
            "url": agent.url, "api": api, "api_key_env": KEY_ENV})
        recording = await asyncio.wait_for(
            run_realtime(transport, user, RATE, frame_ms=FRAME_MS, tail_ms=300), SESSION_LIMIT_S)
        assert isinstance(transport, OpenAIRealtimeTransport)
        return recording, agent.log, transport


BARGE_IN_TRACK = (("speech", 500), ("silence", BARGE_IN_DUE_MS - 500), ("speech", 400),
                  ("silence", 600))


def check_barge_in(recording: SessionRecording, log: AgentLog) -> int:
    """The truncate names the milliseconds of the reply the recording played, which the
    run's own timeline bounds: not before the user's second utterance went out, not after
    the runner logged the server's speech_started; returns them. Where the reply starts
    depends on how fast the machine ran the agent (580 ms played on a quiet one, 304 ms
    at load average 5), so no fixed number is expected."""
    assert recording.fault is None
    truncates = [c for c in log.controls if c["type"] == "conversation.item.truncate"]
    assert len(truncates) == 1
    truncate = truncates[0]
    assert truncate["item_id"] == "item_agent_1" and truncate["content_index"] == 0
    # the same number the runner logged: the reply was the first agent audio, so its
    # item starts at played position 0 and audio_end_ms equals played_ms
    barge_in = [e for e in of_type(recording, "speech_started") if e["dropped_ms"] > 0]
    assert len(barge_in) == 1 and barge_in[0]["played_ms"] == truncate["audio_end_ms"]
    played, clear_at = int(truncate["audio_end_ms"]), float(barge_in[0]["t_ms"])
    # the reply as received before the barge-in: packets placed end to end from its start
    reply = [e for e in of_type(recording, "audio") if float(e["t_ms"]) < clear_at]
    start = float(reply[0]["placed_ms"])
    received_ms = sum(int(e["samples"]) for e in reply) * 1000 / RATE
    assert [float(e["placed_ms"]) for e in reply] == pytest.approx(
        [start + sum(int(e["samples"]) for e in reply[:i]) * 1000 / RATE
         for i in range(len(reply))], abs=0.002)
    # the clear split what was received into played and dropped (played_ms is floored)
    assert 0 <= received_ms - (played + float(barge_in[0]["dropped_ms"])) < 1
    # played up to a moment between sending the user's barge-in (due at 1500 ms, sent
    # as late as the run's sender was) and logging the server's speech_started
    sent = BARGE_IN_DUE_MS + recording.send_lateness_ms[BARGE_IN_DUE_MS // FRAME_MS]
    assert sent - 1 <= start + played <= clear_at
    assert 0 < played < received_ms
    # nothing of the reply is in the agent track after the clear, up to the next reply
    # (the track is written as time passes, so it is cut where the clear was logged)
    later = [float(e["placed_ms"]) for e in of_type(recording, "audio")
             if float(e["t_ms"]) > clear_at]
    cut = RATE * (int(clear_at) + 1) // 1000
    assert not recording.agent[cut : RATE * int(min(later, default=2300)) // 1000].any()
    # user transcript for WER
    assert [e["text"] for e in of_type(recording, "transcript")] == ["book a table"]
    return played


@pytest.mark.parametrize("api", ["ga", "beta"])
def test_barge_in_truncates_at_the_played_milliseconds(api: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    recording, log, _ = asyncio.run(_run(api, track(*BARGE_IN_TRACK),
                                         {"transcripts": "book a table"}))
    check_barge_in(recording, log)
    # the session the client asked for, in this API's spelling
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


STALL_AT_S, STALL_S = 1.0, 0.3
"""When and for how long the stalled test holds the event loop, counted from the start of
the run: while the agent is about to reply (its reply then starts some 300 ms late)."""


def test_barge_in_truncates_where_played_on_a_stalled_machine(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy machine, made on purpose: the event loop (agent and runner both) is held
    for 300 ms just before the reply. The reply starts later, less of it is played before
    the barge-in, and the truncate still says exactly how much (a fixed 580 ms failed)."""
    monkeypatch.setenv(KEY_ENV, SECRET)

    async def stalled() -> tuple[SessionRecording, AgentLog, OpenAIRealtimeTransport]:
        asyncio.get_running_loop().call_later(STALL_AT_S, time.sleep, STALL_S)
        return await _run("ga", track(*BARGE_IN_TRACK), {"transcripts": "book a table"})

    recording, log, _ = asyncio.run(stalled())
    check_barge_in(recording, log)


def test_api_key_goes_only_into_the_request_header(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    user = track(("speech", 500), ("silence", 900))
    recording, log, transport = asyncio.run(_run("ga", user, {}))
    assert log.authorized == [True]  # the agent did receive a bearer token
    assert recording.fault is None and of_type(recording, "audio")
    written = dumps({"events": [event.report_dict() for event in recording.events],
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
