"""The life of a misbehaving HTTP server: on 127.0.0.1, on a thread of its own, stopped
at the end of its ``with`` block or by itself after ``lifetime_s``.

A server module subclasses :class:`LoopbackHttp` and gives its request handler class;
how it answers is its own.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self

from http_poll import POLL_S


class LoopbackHttp:
    """Serve ``handler`` on 127.0.0.1 (a free port) from ``__enter__`` until ``__exit__``
    or ``lifetime_s``, whichever comes first."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], lifetime_s: float) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True,
                                        kwargs={"poll_interval": POLL_S})
        self._timer = threading.Timer(lifetime_s, self._httpd.shutdown)
        self._timer.daemon = True

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    def __enter__(self) -> Self:
        self._thread.start()
        self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._timer.cancel()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(10)
