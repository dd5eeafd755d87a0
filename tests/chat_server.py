"""A local OpenAI-compatible chat server speaking the real HTTP API, for the judge tests
(the v1.0 self-hosted judge, the v1.5 judge and the session task judge)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from http_poll import POLL_S

RESPOND_REPLY = '{"behaviour": ["C_RESPOND"]}'


class ChatServer:
    """``POST /v1/chat/completions`` on 127.0.0.1, served from a thread from the start:
    answers from a script of (status, content) replies, then from ``answer(request
    body)`` (default: C_RESPOND), recording every request body, path and Authorization
    header. A reply names ``reported_model``, or the model asked for when it is None.
    As a context manager it closes on exit; otherwise call :meth:`close`."""

    def __init__(self, replies: list[tuple[int, str]] | None = None,
                 answer: Callable[[dict[str, Any]], str] = lambda _: RESPOND_REPLY,
                 reported_model: str | None = None) -> None:
        self.replies = list(replies or [])
        self.answer = answer
        self.reported_model = reported_model
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.keys: list[str | None] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - the http.server hook name
                length = int(self.headers["Content-Length"])
                server.requests.append(json.loads(self.rfile.read(length)))
                server.paths.append(self.path)
                server.keys.append(self.headers.get("Authorization"))
                status, content = (server.replies.pop(0) if server.replies
                                   else (200, server.answer(server.requests[-1])))
                if status == 200:
                    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0,
                            "model": server.reported_model or server.requests[-1]["model"],
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant",
                                                     "content": content}}],
                            "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                      "total_tokens": 2}}
                else:
                    body = {"error": {"message": content, "type": "test"}}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True,
                         kwargs={"poll_interval": POLL_S}).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> ChatServer:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()
