"""The agents speecheval serves (the local agents and, on the same protocol layer, the
cascade agent) answer a client event nested 200,000 levels deep with the protocol's
error event and keep serving the connection, instead of dying in the handler.

Each case sends the deep event twice (both are answered: the connection still reads),
then a good one that the agent answers as usual.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from hostile.deep_json import deep_array, deep_event
from speech_engine import needs_speech
from websockets.asyncio.client import ClientConnection, connect

from speecheval.agents.cascade import CascadeAgentServer
from speecheval.agents.local import LocalAgentServer

PROBLEM = "event JSON nested deeper than 64 levels"
KIND = {"pcm-websocket": "turn", "openai-realtime": "turn", "native-realtime": "duplex"}
LIMIT_S = 10.0


async def _next_json(ws: ClientConnection) -> dict[str, Any]:
    """The next text message, as JSON (audio in between is skipped)."""
    while True:
        message = await asyncio.wait_for(ws.recv(), LIMIT_S)
        if isinstance(message, str):
            data: dict[str, Any] = json.loads(message)
            return data


def _expected_error(protocol: str) -> dict[str, Any]:
    if protocol == "pcm-websocket":
        return {"type": "error", "message": PROBLEM}
    if protocol == "openai-realtime":
        return {"type": "error", "error": {"type": "invalid_request_error",
                                           "code": "invalid_event", "message": PROBLEM}}
    return {"type": "error", "sglang": {"fatal": False},
            "error": {"type": "invalid_request_error", "code": "invalid_request",
                      "message": PROBLEM, "event_id": None, "param": None}}


def _good_event(protocol: str) -> dict[str, Any]:
    """A session.update the agent answers with session.updated."""
    if protocol == "openai-realtime":
        return {"type": "session.update", "session": {"type": "realtime"}}
    return {"type": "session.update", "event_id": "e1",
            "session": {"type": "realtime", "audio": {"input": {"turn_detection": None}}}}


async def _exchange(server: AbstractAsyncContextManager[Any], protocol: str) -> None:
    async with server as agent, connect(agent.url, max_size=None) as ws:
        greeting = await _next_json(ws)  # format (raw) or session.created (realtime)
        assert greeting["type"] in ("format", "session.created")
        deep = deep_array() if protocol == "pcm-websocket" else deep_event("session.update")
        for _ in range(2):
            await ws.send(deep)
            assert await _next_json(ws) == _expected_error(protocol)
        if protocol == "pcm-websocket":  # no control message is answered: the start one
            await ws.send(json.dumps({"sample_rate": 16000}))
            await ws.send(deep)
            assert await _next_json(ws) == _expected_error(protocol)
            assert agent.log.controls == [{"sample_rate": 16000}]
        else:
            await ws.send(json.dumps(_good_event(protocol)))
            assert (await _next_json(ws))["type"] == "session.updated"


@pytest.mark.parametrize("protocol", sorted(KIND))
def test_a_local_agent_answers_a_deep_event_with_an_error_and_serves_on(protocol: str) -> None:
    server = LocalAgentServer(KIND[protocol], protocol, {"voice": "synthetic"})
    asyncio.run(_exchange(server, protocol))


@needs_speech
@pytest.mark.parametrize("protocol", ["openai-realtime", "native-realtime"])
def test_the_cascade_agent_answers_a_deep_event_with_an_error_and_serves_on(
        protocol: str) -> None:
    asyncio.run(_exchange(CascadeAgentServer(protocol), protocol))
