"""A local WebRTC peer that echoes the audio it hears after a fixed delay, for tests.

Signalling is the plain HTTP offer/answer the ``webrtc`` transport speaks, served by a
minimal HTTP/1.1 handler on loopback (one POST per connection). The echo track hands
back each decoded frame ``delay_ms`` after it arrived, so the delay measured at the
client is ``delay_ms`` plus what the two Opus legs and jitter buffers add.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

aiortc = pytest.importorskip(
    "aiortc", reason="aiortc is not installed (pip install 'speecheval[webrtc]')")
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack  # noqa: E402


class DelayedEcho(MediaStreamTrack):  # type: ignore[misc]
    kind = "audio"

    def __init__(self, source: Any, delay_ms: int) -> None:
        super().__init__()
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.task = asyncio.create_task(self._pump(source, delay_ms / 1000.0))

    async def _pump(self, source: Any, delay_s: float) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                frame = await source.recv()
                loop.call_later(delay_s, self.queue.put_nowait, frame)
        except MediaStreamError:
            loop.call_later(delay_s, self.queue.put_nowait, None)

    async def recv(self) -> Any:
        frame = await self.queue.get()
        if frame is None:
            self.stop()
            raise MediaStreamError
        return frame


@asynccontextmanager
async def echo_peer(delay_ms: int, answer: dict[str, str] | None = None,
                    edit_sdp: Callable[[str], str] | None = None) -> AsyncIterator[str]:
    """Serve the echo on loopback; yield the signalling URL. ``answer`` replaces the SDP
    answer, ``edit_sdp`` rewrites it (a broken agent)."""
    peers: list[Any] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        offer = json.loads(await reader.readexactly(length))
        pc = aiortc.RTCPeerConnection()
        peers.append(pc)

        @pc.on("track")  # type: ignore[untyped-decorator]
        def on_track(track: Any) -> None:
            pc.addTrack(DelayedEcho(track, delay_ms))

        await pc.setRemoteDescription(aiortc.RTCSessionDescription(**offer))
        await pc.setLocalDescription(await pc.createAnswer())
        sdp = pc.localDescription.sdp
        body = json.dumps(answer or {"sdp": edit_sdp(sdp) if edit_sdp else sdp,
                                     "type": pc.localDescription.type}).encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/offer"
    finally:
        server.close()
        await server.wait_closed()
        for pc in peers:
            await pc.close()
