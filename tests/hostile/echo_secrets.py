"""Servers that echo every credential they receive back in what they answer.

A careless or hostile system under test repeats its request: the path and query of the
URL it was called on (``?token=...``), every header (``Authorization: Bearer ...``,
HTTP basic auth made from URL userinfo, custom headers) and every text message. Here that
echo is the whole answer, so a test can read every file a run wrote and everything it
printed and look for the :data:`CANARIES`:

* :class:`EchoAgent` speaks ``pcm-websocket``: on each connection it sends the echo as an
  agent ``transcript`` event, a little audio, and (``fault=True``) an ``error`` event
  quoting the echo again; each text message it receives (a ``start_message``) is echoed
  as another transcript. A plain ``GET /v1/models`` on its port lists models whose ids
  hold the echo and the key the server was told (:attr:`Canaries.header_key`).
* :class:`EchoHttp` answers ``POST /v1/audio/transcriptions`` (verbose JSON whose words
  are the echo, word by word, so the key comes back as a word), ``POST
  /v1/chat/completions`` (a completion whose content and model are the echo) and ``GET
  /v1/models``.

Both listen on 127.0.0.1 only, on a background thread, and stop by themselves after
``lifetime_s`` or ``max_requests``, whichever comes first.

* Run as a program (:data:`PROGRAM`, see :func:`main`), this file is a ``command``
  system or a judge command that prints its whole environment, ``NAME=VALUE`` per line,
  to its standard output and error and writes it into the transcript it is asked for.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

PROGRAM = Path(__file__).resolve()
"""This file, to run as an echoing program: ``[sys.executable, PROGRAM, ...]``."""
POLL_S = 0.02
"""``tests/http_poll.py``'s value, spelled out: run as a program, this file does not have
``tests/`` on its import path."""
LIFETIME_S = 60.0
MAX_REQUESTS = 200
AUDIO = bytes(2 * 1600)
"""0.1 s of silence at 16 kHz, PCM16: the agent's reply, so a session has audio."""


@dataclass(frozen=True)
class Canaries:
    """Secrets planted where users put them; none may reach a file or a stream."""

    user: str = "canary-user-8d1f"
    password: str = "canary-p@ss/w0rd-51e7"
    query_token: str = "canary-qtok-2b9c"
    header_key: str = "canary-bearer-6a0e"
    header_value: str = "canary-hval-93f4"
    env_key: str = "canary-envkey-c7d2"

    def forms(self) -> list[str]:
        """Every canary in every form a server could echo it: plain, percent-encoded,
        and the HTTP basic auth a WebSocket client makes of URL userinfo."""
        basic = base64.b64encode(f"{self.user}:{self.password}".encode()).decode("ascii")
        return [self.user, self.password, quote(self.password, safe=""), self.query_token,
                self.header_key, self.header_value, self.env_key, basic]

    def url(self, base: str) -> str:
        """``base`` (``ws://127.0.0.1:P/path``) with userinfo and ``?token=`` added."""
        scheme, rest = base.split("://", 1)
        return (f"{scheme}://{self.user}:{quote(self.password, safe='')}@{rest}"
                f"?token={self.query_token}")

    def headers(self) -> str:
        """The ``headers`` option of a WebSocket agent: a bearer key and a custom value."""
        return json.dumps({"Authorization": f"Bearer {self.header_key}",
                           "X-Trace": self.header_value})


CANARIES = Canaries()


def leaked(text: str, canaries: Canaries = CANARIES) -> list[str]:
    """The canary forms found in ``text``."""
    return [form for form in canaries.forms() if form in text]


def echo_of(target: str, headers: list[tuple[str, str]]) -> str:
    """What the server received, as one line: the request target and every header."""
    return " ".join([f"request {target}", *(f"{name}: {value}" for name, value in headers)])


def models_body(echo: str, canaries: Canaries) -> bytes:
    """A ``/v1/models`` list whose ids (and other fields) hold the echo and the key the
    server knows, as a server that lists the caller's own key would."""
    return json.dumps({"object": "list", "request": echo,
                       "data": [{"id": "echo-model", "owned_by": canaries.header_key},
                                {"id": f"key-{canaries.header_key}"},
                                {"id": f"seen {echo}"}]}).encode()


class EchoAgent:
    """A ``pcm-websocket`` agent that echoes its handshake (see the module docstring)."""

    def __init__(self, canaries: Canaries = CANARIES, fault: bool = True,
                 lifetime_s: float = LIFETIME_S, max_requests: int = MAX_REQUESTS) -> None:
        self.canaries = canaries
        self.fault = fault
        self.lifetime_s = lifetime_s
        self.max_requests = max_requests
        self.requests = 0
        self.url = ""
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __enter__(self) -> EchoAgent:
        self._thread.start()
        assert self._ready.wait(10), "the echo agent did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with serve(self._session, "127.0.0.1", 0,
                         process_request=self._plain_http) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            self.url = f"ws://127.0.0.1:{port}/agent"
            self._ready.set()
            try:
                async with asyncio.timeout(self.lifetime_s):
                    await self._stop.wait()
            except TimeoutError:
                pass

    def _plain_http(self, connection: ServerConnection, request: Request) -> Response | None:
        self.requests += 1
        if self.requests > self.max_requests:
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "enough\n")
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None
        echo = echo_of(request.path, list(request.headers.raw_items()))
        if request.path.split("?", 1)[0] == "/v1/models":
            body = models_body(echo, self.canaries)
            return Response(HTTPStatus.OK, "OK", Headers({
                "Content-Type": "application/json", "Content-Length": str(len(body)),
                "Connection": "close"}), body)
        return connection.respond(HTTPStatus.NOT_FOUND, echo)

    async def _session(self, connection: ServerConnection) -> None:
        request = connection.request
        assert request is not None
        echo = echo_of(request.path, list(request.headers.raw_items()))
        await connection.send(json.dumps({"type": "transcript", "role": "agent",
                                          "text": echo, "final": True}))
        await connection.send(AUDIO)
        try:
            async with asyncio.timeout(0.3):
                async for message in connection:
                    if isinstance(message, str):
                        await connection.send(json.dumps(
                            {"type": "transcript", "role": "user", "text": message}))
        except TimeoutError:
            pass
        if self.fault:
            await connection.send(json.dumps({"type": "error", "message": echo}))
        async for _ in connection:  # until the client closes
            pass


@contextmanager
def echo_agent(canaries: Canaries = CANARIES, fault: bool = True) -> Iterator[EchoAgent]:
    """An :class:`EchoAgent` while the block runs."""
    with EchoAgent(canaries, fault) as agent:
        yield agent


class EchoHttp:
    """An ASR server and a chat judge that echo their requests (see the module docstring).

    ``url`` is the OpenAI API base (``http://127.0.0.1:P/v1``)."""

    def __init__(self, canaries: Canaries = CANARIES, lifetime_s: float = LIFETIME_S,
                 max_requests: int = MAX_REQUESTS) -> None:
        self.canaries = canaries
        self.max_requests = max_requests
        self.requests = 0
        self._timer = threading.Timer(lifetime_s, self._shutdown)
        self._timer.daemon = True
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                owner.answer(self, b"")

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length", "0"))
                owner.answer(self, self.rfile.read(length))

            def log_message(self, *args: Any) -> None:
                """Quiet: the echo is the answer, not the log."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        kwargs={"poll_interval": POLL_S})

    def __enter__(self) -> EchoHttp:
        self._thread.start()
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        self._shutdown()
        self._thread.join(10)

    def _shutdown(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        """The echo in the form the endpoint's callers read."""
        self.requests += 1
        echo = echo_of(handler.path, list(handler.headers.items()))
        path = handler.path.split("?", 1)[0]
        if self.requests > self.max_requests:
            status, data = 503, b'{"error": {"message": "enough"}}'
        elif path == "/v1/models":
            status, data = 200, models_body(echo, self.canaries)
        elif path == "/v1/audio/transcriptions":
            status, data = 200, transcription_body(echo)
        elif path == "/v1/chat/completions":
            status, data = 200, json.dumps({
                "model": f"echo {echo}",
                "choices": [{"message": {"role": "assistant", "content": echo}}]}).encode()
        else:
            status, data = 404, echo.encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


def transcription_body(echo: str) -> bytes:
    """verbose_json whose words are the echo, one every 0.1 s, and one segment of it all."""
    words = [{"word": word, "start": round(0.1 * i, 3), "end": round(0.1 * i + 0.1, 3)}
             for i, word in enumerate(echo.split()[:40])]
    end = words[-1]["end"] if words else 0.0
    return json.dumps({"task": "transcribe", "language": "english", "duration": end,
                       "text": echo, "words": words,
                       "segments": [{"id": 0, "start": 0.0, "end": end, "text": echo}]}
                      ).encode()


@contextmanager
def echo_http(canaries: Canaries = CANARIES) -> Iterator[EchoHttp]:
    """An :class:`EchoHttp` while the block runs."""
    with EchoHttp(canaries) as server:
        yield server


def environment_lines() -> str:
    """This process's environment, ``NAME=VALUE`` per line, sorted by name."""
    return "".join(f"{name}={value}\n" for name, value in sorted(os.environ.items()))


def main(argv: list[str]) -> int:
    """``PROGRAM [INPUT OUTPUT [STATUS]]``: print the environment to stdout and stderr; with
    OUTPUT, write it as the words of one STM segment there (a ``command`` system); exit
    with STATUS (default 0). Without arguments it reads its standard input first (a judge
    command) and answers with the environment."""
    if not argv:
        sys.stdin.read()
    sys.stdout.write(environment_lines())
    sys.stderr.write(environment_lines())
    if len(argv) >= 2:
        words = " ".join(environment_lines().split())
        Path(argv[1]).write_text(f"echo 1 spk 0.000 1.000 {words}\n", encoding="utf-8")
    return int(argv[2]) if len(argv) >= 3 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
