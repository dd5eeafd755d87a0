"""A local OpenAI-compatible chat server speaking the real HTTP API, for the judge tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RESPOND_REPLY = '{"behaviour": ["C_RESPOND"]}'


class ChatServer:
    """``POST /v1/chat/completions``: answers from a script of (status, content) replies,
    then from ``answer(request body)`` (default: C_RESPOND), recording every request body
    and Authorization header."""

    def __init__(self) -> None:
        self.replies: list[tuple[int, str]] = []
        self.answer: Callable[[dict[str, Any]], str] = lambda _: RESPOND_REPLY
        self.requests: list[dict[str, Any]] = []
        self.keys: list[str | None] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - the http.server hook name
                length = int(self.headers["Content-Length"])
                server.requests.append(json.loads(self.rfile.read(length)))
                server.keys.append(self.headers.get("Authorization"))
                status, content = (server.replies.pop(0) if server.replies
                                   else (200, server.answer(server.requests[-1])))
                if status == 200:
                    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0,
                            "model": server.requests[-1]["model"],
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
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
