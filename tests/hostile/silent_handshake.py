"""A server that accepts TCP connections and never answers: no WebSocket upgrade, no HTTP
status line, nothing. It reads (and drops) what the client sends, so the client's request
leaves without error and the only thing that can end the wait is the client's own timeout.

``with SilentServer() as server:`` gives ``server.ws_url`` / ``server.http_url``; each
accepted connection is held open until the client hangs up, ``hold_s`` passes, or the
server stops (after ``lifetime_s`` or at the end of the block). ``accepted`` counts the
connections, so a test can tell a client that never tried from one that gave up.
"""

from __future__ import annotations

import socket
import threading
from types import TracebackType


class SilentServer:
    """Accept on 127.0.0.1 and stay silent (see the module docstring)."""

    def __init__(self, *, max_connections: int = 16, hold_s: float = 30.0,
                 lifetime_s: float = 60.0) -> None:
        self.max_connections = max_connections
        self.hold_s = hold_s
        self.lifetime_s = lifetime_s
        self.accepted = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self._port = int(self._listener.getsockname()[1])  # still known once it is closed
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._acceptor = threading.Thread(target=self._accept, daemon=True)

    @property
    def port(self) -> int:
        return self._port

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1/realtime"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> SilentServer:
        self._acceptor.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stop.set()
        self._acceptor.join(10)
        for thread in self._threads:
            thread.join(10)
        self._listener.close()

    def _accept(self) -> None:
        stop_at = threading.Timer(self.lifetime_s, self._stop.set)
        stop_at.daemon = True
        stop_at.start()
        try:
            while not self._stop.is_set() and self.accepted < self.max_connections:
                try:
                    conn, _ = self._listener.accept()
                except TimeoutError:
                    continue
                self.accepted += 1
                thread = threading.Thread(target=self._hold, args=(conn,), daemon=True)
                self._threads.append(thread)
                thread.start()
        finally:
            stop_at.cancel()

    def _hold(self, conn: socket.socket) -> None:
        """Read and drop until the client hangs up, ``hold_s`` passes or the server stops."""
        conn.settimeout(0.1)
        waited = 0.0
        with conn:
            while not self._stop.is_set() and waited < self.hold_s:
                try:
                    if not conn.recv(65536):
                        return
                except TimeoutError:
                    waited += 0.1
                except OSError:
                    return
