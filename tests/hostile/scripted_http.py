"""An HTTP server that answers from a script: throttles, fails, redirects, cuts off.

A remote model misbehaves in a handful of ways a client must tell apart: HTTP 429 with a
``Retry-After``, a 5xx, a 401, a redirect to somewhere else (where the key must not go),
a 2xx whose body stops short of its ``Content-Length``. :class:`ScriptedHttp` answers
each request (any method, any path) with the next :class:`Scripted` answer, then with
``default``, and records every request it received (:class:`Received`: method, path,
headers, body and when it arrived on the monotonic clock, so a test can check that a
client waited at least as long as it was told).

It listens on 127.0.0.1 on a thread of its own and stops by itself after ``lifetime_s``
or ``max_requests`` requests (later ones get HTTP 503 and are not recorded).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from .loopback_http import LoopbackHttp


@dataclass(frozen=True)
class Scripted:
    """One answer: status, body and headers; ``cut_to`` sends only that many bytes of
    the body (after a ``Content-Length`` that announces all of it) and hangs up."""

    status: int = 200
    body: bytes = b"{}"
    headers: dict[str, str] = field(default_factory=dict)
    cut_to: int | None = None


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    at: float
    """``time.monotonic()`` when the request had been read."""


class ScriptedHttp(LoopbackHttp):
    """``with ScriptedHttp([Scripted(429, headers={"Retry-After": "1"})]) as server:``
    ``server.url`` is ``http://127.0.0.1:P/v1``; ``server.received`` the requests."""

    def __init__(self, script: list[Scripted] | None = None,
                 default: Scripted = Scripted(), *, max_requests: int = 20,
                 lifetime_s: float = 60.0) -> None:
        self.script = list(script or [])
        self.default = default
        self.max_requests = max_requests
        self.received: list[Received] = []
        self._lock = threading.Lock()
        super().__init__(self._handler_class(), lifetime_s)
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def _next(self, request: Received) -> Scripted | None:
        with self._lock:
            if len(self.received) >= self.max_requests:
                return None
            self.received.append(request)
            return self.script.pop(0) if self.script else self.default

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the http.server spelling)
                self._answer(b"")

            def do_POST(self) -> None:  # noqa: N802
                self._answer(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

            def _answer(self, body: bytes) -> None:
                answer = server._next(Received(self.command, self.path, dict(self.headers),
                                               body, time.monotonic()))
                if answer is None:
                    self.send_error(503, "too many requests for this test server")
                    return
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body[:answer.cut_to])
                if answer.cut_to is not None:
                    self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: a test's output is its assertions."""

        return Handler
