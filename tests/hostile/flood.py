"""An agent that floods its client: far more audio than any reply, or far more messages,
as fast as the socket takes them.

It speaks pcm-websocket (binary messages of PCM16; :mod:`speecheval.agents.pcm_websocket`)
on 127.0.0.1, so any record command, and ``session run``, can be pointed at it with
``--agent pcm-websocket -o url=...``. A connection whose path is in ``flood_paths`` (every
connection when it is None), among the first ``flood_connections`` (all when None), gets
``total_bytes`` of audio in ``chunk_bytes`` messages straight after the handshake (a
``chunk_bytes`` of 2 is a flood of one-sample messages), or, with ``text`` set, that text
message (a protocol event such as a transcript) over and over until ``total_bytes`` of
it are sent; any other connection gets one short ``reply_bytes`` message, as a
well-behaved agent's reply, and is then left open. The server is bounded: it accepts at most
``max_connections`` connections, each handler gives up after ``lifetime_s``, and it
stops when its context ends, or by itself once ``lifetime_s`` has passed.

Use :func:`flood_thread` from a test whose command runs its own event loop (the CLI): it
serves on a background thread and yields the server, whose ``url`` ends in
``/{sample_id}`` and whose ``sent`` says how many bytes each path was sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

SAMPLE = b"\x10\x00"   # PCM16 little-endian 16: quiet, but not silence
STALLED_SEND_S = 1.0


@dataclass
class FloodAgent:
    """The flooding pcm-websocket agent (see the module docstring)."""

    total_bytes: int
    chunk_bytes: int = 32_768
    flood_paths: frozenset[str] | None = None
    flood_connections: int | None = None
    text: str | None = None
    reply_bytes: int = 3_200
    max_connections: int = 8
    lifetime_s: float = 30.0
    sent: dict[str, int] = field(default_factory=dict)
    port: int = 0
    _connections: int = 0

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/{{sample_id}}"

    async def _handle(self, connection: ServerConnection) -> None:
        path = connection.request.path if connection.request is not None else ""
        self._connections += 1
        if self._connections > self.max_connections:
            await connection.close(1013, "flood agent: connection limit reached")
            return
        self.sent[path] = 0
        floods = ((self.flood_paths is None or path in self.flood_paths)
                  and (self.flood_connections is None
                       or self._connections <= self.flood_connections))
        try:
            async with asyncio.timeout(self.lifetime_s):
                if floods:
                    message: str | bytes = (SAMPLE * (self.chunk_bytes // len(SAMPLE))
                                            if self.text is None else self.text)
                    size = len(message.encode() if isinstance(message, str) else message)
                    while self.sent[path] < self.total_bytes:
                        # a client that stopped reading blocks the send for good (and a
                        # close behind it): give up on it after a second
                        async with asyncio.timeout(STALLED_SEND_S):
                            await connection.send(message)
                        self.sent[path] += size
                        # a send that fits the socket's buffer does not wait: let the
                        # loop read the client's close between messages, or a flood of
                        # small ones would go on past it until the buffer filled
                        await asyncio.sleep(0)
                else:
                    await connection.send(SAMPLE * (self.reply_bytes // len(SAMPLE)))
                    self.sent[path] += self.reply_bytes
                async for _ in connection:   # read the user's audio until the client closes
                    pass
        except ConnectionClosed:
            return
        except TimeoutError:
            connection.transport.abort()

    async def serve_until(self, stop: asyncio.Event, started: threading.Event) -> None:
        server: Server
        async with serve(self._handle, "127.0.0.1", 0, max_size=None, compression=None,
                         close_timeout=1.0) as server:
            self.port = next(iter(server.sockets)).getsockname()[1]
            started.set()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.lifetime_s):
                    await stop.wait()


@contextlib.contextmanager
def flood_thread(agent: FloodAgent) -> Iterator[FloodAgent]:
    """Serve ``agent`` on an event loop of its own in a background thread."""
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    started = threading.Event()
    thread = threading.Thread(target=loop.run_until_complete,
                              args=(agent.serve_until(stop, started),), daemon=True)
    thread.start()
    assert started.wait(10), "the flood agent did not start"
    try:
        yield agent
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        loop.close()


MEASURE = """
import importlib, sys, tracemalloc
from speecheval.cli import main
for module in sys.argv[1].split(","):
    importlib.import_module(module)
tracemalloc.start()
code = main(sys.argv[2:])
print(code, tracemalloc.get_traced_memory()[1])
"""
"""Runs ``speecheval`` in a child with tracemalloc started after the imports it is given,
so the peak is what the command allocated, not the interpreter's modules."""


def traced_peak(argv: list[str], preload: tuple[str, ...]) -> tuple[int, int]:
    """The exit code of ``speecheval argv`` run in a child, and the peak bytes it traced
    after importing ``preload`` (the modules the command would import anyway)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", MEASURE, ",".join(preload), *argv],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    code, peak = done.stdout.split()[-2:]
    return int(code), int(peak)
