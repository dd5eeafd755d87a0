"""A Pipecat bot that serves many callers at once, for ``session load`` over the
``pipecat`` transport; run with Pipecat's Python:

    PYTHON pipecat_load_bot.py PORT

Pipecat's own WebSocket server transport serves one client at a time; a deployed bot
gives each caller a pipeline of its own behind a web server (a FastAPI WebSocket endpoint
and ``FastAPIWebsocketTransport``). This does the same without the web server: each
connection to a plain ``websockets`` server reaches ``FastAPIWebsocketTransport`` as a
Starlette WebSocket (the ASGI messages mapped one to one) and gets its own pipeline,
transport input -> the answering processor of ``tests/agents/pipecat_bot.py`` ->
transport output, with Pipecat's ProtobufFrameSerializer. Prints ``ready`` once it
listens.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.runner import PipelineRunner
from pipecat.pipeline.task import PipelineParams, PipelineTask
from pipecat.serializers.protobuf import ProtobufFrameSerializer
from pipecat.transports.websocket.fastapi import FastAPIWebsocketParams, FastAPIWebsocketTransport
from starlette.websockets import WebSocket
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "agents"))
from pipecat_bot import OUT_RATE, AnswerAudioWithAudio  # noqa: E402


def asgi_websocket(connection: ServerConnection) -> WebSocket:
    """``connection`` as the Starlette WebSocket an ASGI server would have made of it."""
    connected = False

    async def receive() -> dict[str, Any]:
        nonlocal connected
        if not connected:
            connected = True
            return {"type": "websocket.connect"}
        try:
            message = await connection.recv()
        except ConnectionClosed:
            return {"type": "websocket.disconnect", "code": 1000}
        key = "bytes" if isinstance(message, bytes) else "text"
        return {"type": "websocket.receive", key: message}

    async def send(message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "websocket.send":
            data = message.get("bytes")
            await connection.send(data if data is not None else message["text"])
        elif kind == "websocket.close":
            await connection.close(message.get("code", 1000))

    scope = {"type": "websocket", "path": "/", "headers": [], "query_string": b"",
             "subprotocols": []}
    return WebSocket(scope, receive, send)


async def one_caller(connection: ServerConnection) -> None:
    websocket = asgi_websocket(connection)
    await websocket.accept()
    transport = FastAPIWebsocketTransport(websocket, FastAPIWebsocketParams(
        audio_in_enabled=True, audio_out_enabled=True, serializer=ProtobufFrameSerializer()))
    pipeline = Pipeline([transport.input(), AnswerAudioWithAudio(), transport.output()])
    task = PipelineTask(pipeline, params=PipelineParams(audio_in_sample_rate=16000,
                                                        audio_out_sample_rate=OUT_RATE))

    @transport.event_handler("on_client_disconnected")
    async def gone(_transport: object, _websocket: object) -> None:
        await task.cancel()

    await PipelineRunner(handle_sigint=False).run(task)


async def main(port: int) -> None:
    async with serve(one_caller, "127.0.0.1", port, compression=None):
        print("ready", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
