"""Counterparts that send JSON nested too deep, or too long, for a parser to build.

:class:`DeepJsonAgent` is a WebSocket agent (``pcm-websocket``, ``openai-realtime`` or
``native-realtime``) that behaves until it has echoed ``after`` audio packets back to the
client, then sends one hostile text message mid-stream, then goes on echoing as if
nothing happened. :class:`JsonAnswerServer` is an HTTP server (an ASR server, a judge, a
signalling server) that answers every POST with the body its URL's first path segment
names, so one server can be the hostile system and the well-behaved one of the same run.

Both run on 127.0.0.1 on a thread of their own, so a test can aim a CLI command (which
runs its own event loop) at them; both stop by themselves after ``max_connections`` /
``max_requests`` or ``lifetime_s``, whichever comes first.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

DEPTH = 200_000  # the probe's depth: far past the standard parser's recursion limit
PROTOCOLS = ("pcm-websocket", "openai-realtime", "native-realtime")
REALTIME_PATH = "/v1/realtime"
NATIVE_RATE = 16000  # what the native agent grants both ways
OPENAI_RATE = 24000


def deep_array(depth: int = DEPTH) -> str:
    """``[[[...]]]``: ``depth`` nested arrays, valid JSON the standard parser cannot build."""
    return "[" * depth + "]" * depth


def deep_event(kind: str, depth: int = DEPTH) -> str:
    """A realtime event of type ``kind`` whose ``delta`` is ``depth`` nested arrays."""
    return json.dumps({"type": kind, "delta": None}).replace("null", deep_array(depth))


def long_string_event(chars: int) -> str:
    """A valid ``error``-free JSON object ``chars`` characters long (a transcript whose
    text is padding): harmless to the parser, but past any sane message size."""
    head = '{"type": "transcript", "role": "agent", "final": true, "text": "'
    return head + "a" * (chars - len(head) - 2) + '"}'


def every_connection(number: int, path: str) -> bool:
    """Attack every connection (the default target)."""
    return True


@dataclass
class Connection:
    """What one connection did: its request path, whether it was attacked, and how many
    client messages arrived after the attack (a client that hung up sends none)."""

    number: int
    path: str
    attacked: bool = False
    echoed: int = 0
    messages_after_attack: int = 0


@dataclass
class _Protocol:
    """How the agent speaks one protocol: its greeting, its answer to each client text
    message, and how it wraps echoed audio."""

    name: str
    greeting: list[dict[str, Any]] = field(default_factory=list)

    def answer(self, data: dict[str, Any]) -> tuple[bytes | None, list[dict[str, Any]]]:
        """(audio to echo, events to send) for one client JSON event."""
        kind = data.get("type")
        if kind == "input_audio_buffer.append":
            return base64.b64decode(str(data.get("audio", ""))), []
        if kind == "session.update":
            return None, [{"type": "session.updated", "session": self.session()}]
        if kind == "session.close":
            return None, [{"type": "session.closed", "reason": "client_closed"}]
        return None, []

    def session(self) -> dict[str, Any]:
        if self.name == "openai-realtime":
            fmt = {"type": "audio/pcm", "rate": OPENAI_RATE}
            return {"type": "realtime", "audio": {"input": {"format": fmt},
                                                  "output": {"format": fmt}}}
        fmt = {"type": "audio/pcm", "rate": NATIVE_RATE}
        return {"type": "realtime", "audio": {"input": {"format": fmt},
                                              "output": {"format": fmt}},
                "sglang": {"granted": {"input_audio_format": fmt,
                                       "output_audio_format": fmt}}}

    def audio(self, pcm16: bytes) -> str | bytes:
        if self.name == "pcm-websocket":
            return pcm16
        return json.dumps({"type": "response.output_audio.delta", "item_id": "item_1",
                           "delta": base64.b64encode(pcm16).decode("ascii")})


class DeepJsonAgent:
    """``with DeepJsonAgent("pcm-websocket", deep_array()) as agent: agent.url``.

    The agent echoes every audio packet it hears; on a connection ``targets(number,
    path)`` picks (numbered from 1, path with its query), once it has echoed ``after``
    packets it sends ``payload`` as one text message, then echoes on. ``connections``
    records each connection (see :class:`Connection`).
    """

    def __init__(self, protocol: str, payload: str, *, after: int = 5,
                 targets: Callable[[int, str], bool] = every_connection,
                 max_connections: int = 8, lifetime_s: float = 60.0) -> None:
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
        self.protocol = _Protocol(protocol)
        self.payload = payload
        self.after = after
        self.targets = targets
        self.max_connections = max_connections
        self.lifetime_s = lifetime_s
        self.connections: list[Connection] = []
        self.url = ""
        self._live: set[ServerConnection] = set()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._loop.run_until_complete,
                                        args=(self._serve(),), daemon=True)

    def __enter__(self) -> DeepJsonAgent:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the deep-JSON agent did not start")
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)
        self._loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        async with serve(self._handle, "127.0.0.1", 0, max_size=None, compression=None,
                         close_timeout=1) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            path = "" if self.protocol.name == "pcm-websocket" else REALTIME_PATH
            self.url = f"ws://127.0.0.1:{port}{path}"
            self._ready.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self.lifetime_s)
            # a client that stopped reading leaves a send blocked, and the close
            # handshake waits behind it: hang up on every connection still open
            for ws in self._live:
                ws.transport.abort()

    async def _handle(self, ws: ServerConnection) -> None:
        if len(self.connections) >= self.max_connections:
            await ws.close(1013, "too many connections for this test server")
            return
        path = ws.request.path if ws.request is not None else ""
        connection = Connection(len(self.connections) + 1, path)
        self.connections.append(connection)
        hostile = self.targets(connection.number, path)
        self._live.add(ws)
        with _quietly_closed():
            if self.protocol.name != "pcm-websocket":
                await ws.send(json.dumps({"type": "session.created",
                                          "session": self.protocol.session()}))
            async for message in ws:
                if connection.attacked:
                    connection.messages_after_attack += 1
                audio, events = self._read(message)
                for event in events:
                    await ws.send(json.dumps(event))
                if audio is None:
                    continue
                await ws.send(self.protocol.audio(audio))
                connection.echoed += 1
                if hostile and not connection.attacked and connection.echoed == self.after:
                    connection.attacked = True
                    await ws.send(self.payload)
        self._live.discard(ws)

    def _read(self, message: str | bytes) -> tuple[bytes | None, list[dict[str, Any]]]:
        if isinstance(message, bytes):
            return message, []
        data = json.loads(message)  # the client is speecheval: its JSON is shallow
        return self.protocol.answer(data) if isinstance(data, dict) else (None, [])


class _quietly_closed:
    """Suppress the client hanging up: after the attack it is expected to."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> bool:
        return kind is not None and issubclass(kind, ConnectionClosed)


class JsonAnswerServer:
    """``with JsonAnswerServer({"deep": deep_array().encode(), "ok": good}) as server:
    server.url("deep")``: an HTTP server on 127.0.0.1 answering each POST (and GET) to
    ``/<name>/...`` with ``bodies[name]``, HTTP 200, ``application/json``; any other name
    is a 404. ``requests`` lists the paths asked for, in order.
    """

    def __init__(self, bodies: Mapping[str, bytes], *, max_requests: int = 50,
                 lifetime_s: float = 60.0) -> None:
        self.bodies = dict(bodies)
        self.max_requests = max_requests
        self.requests: list[str] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._timer = threading.Timer(lifetime_s, self._httpd.shutdown)
        self._timer.daemon = True

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    def url(self, name: str) -> str:
        """The base URL whose requests get ``bodies[name]``, e.g. for ``base_url``."""
        return f"http://127.0.0.1:{self.port}/{name}/v1"

    def __enter__(self) -> JsonAnswerServer:
        self._thread.start()
        self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._timer.cancel()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(10)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server spelling)
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                self._answer()

            def do_GET(self) -> None:  # noqa: N802
                self._answer()

            def _answer(self) -> None:
                server.requests.append(self.path)
                if len(server.requests) > server.max_requests:
                    self.send_error(503, "too many requests for this test server")
                    return
                body = server.bodies.get(self.path.strip("/").split("/")[0])
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: a test's output is its assertions."""

        return Handler
