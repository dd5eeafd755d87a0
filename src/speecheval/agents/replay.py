"""The replay agent: plays recorded outputs back as if a system were speaking them.

``speecheval agents serve replay --outputs DIR`` serves the ``pcm-websocket`` protocol on
127.0.0.1. A session's URL path names the sample (``ws://host:port/<subset>/<id>``, what
``fdb10 record`` makes of ``-o url=ws://host:port/{sample_id}``); the agent streams
``DIR/<subset>/<id>/output.wav`` as its audio, in real time in 80 ms packets on an
absolute schedule that starts when the first input packet arrives, and declares the
file's rate with a ``format`` message first. It ignores what it hears otherwise.

Why: recording a dataset through it and exporting the capture must give the replayed
audio back, late by the time the first packet took to arrive and no more, so the whole
capture pipeline (transport, schedule, playout, export) is checked end to end; and
outputs recorded elsewhere can be put through exactly the same export and eligibility
rules. A path that names no readable mono output.wav is answered with the protocol's
``error`` message, naming it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from ..core.audio import read_mono
from ..core.errors import InputError
from ..core.paths import resolve_inside
from .ws_server import LoopbackServer

PACKET_MS = 80


class ReplayServer(LoopbackServer):
    """``async with ReplayServer(outputs) as server: server.url`` (a free port by default)."""

    def __init__(self, outputs: str | Path, host: str = "127.0.0.1", port: int = 0,
                 packet_ms: int = PACKET_MS) -> None:
        self.outputs = Path(outputs)
        if not self.outputs.is_dir():
            raise InputError("replay outputs folder is not a directory", path=self.outputs)
        super().__init__(host, port)
        self.packet_ms = packet_ms
        self.served: list[str] = []   # sample ids, in connection order (for tests and logs)

    def _load(self, sample_id: str) -> tuple[bytes, int]:
        """The sample's output.wav as PCM16 bytes and its rate; InputError if unusable."""
        if not sample_id:
            raise InputError("the URL path names no sample (use ws://host:port/<subset>/<id>)")
        path = resolve_inside(self.outputs, f"{sample_id}/output.wav", sample_id=sample_id,
                              root_name="the replay outputs")
        if not path.is_file():
            raise InputError("no output.wav to replay", path=path, sample_id=sample_id)
        audio = read_mono(path, sample_id=sample_id)
        pcm = np.clip(np.round(audio.samples.astype(np.float64) * 32768), -32768, 32767)
        return pcm.astype("<i2").tobytes(), audio.rate

    async def _handle(self, ws: ServerConnection) -> None:
        path = ws.request.path if ws.request is not None else ""
        sample_id = unquote(urlsplit(path).path).strip("/")
        try:
            pcm, rate = await asyncio.to_thread(self._load, sample_id)
        except InputError as exc:
            with contextlib.suppress(ConnectionClosed):
                await ws.send(json.dumps({"type": "error", "message": str(exc)}))
                await ws.close()
            return
        self.served.append(sample_id)
        with contextlib.suppress(ConnectionClosed):
            await ws.send(json.dumps({"type": "format", "sample_rate": rate}))
            player: asyncio.Task[None] | None = None
            try:
                async for message in ws:
                    if player is None and isinstance(message, bytes):
                        player = asyncio.create_task(self._play(ws, pcm, rate))
            finally:
                if player is not None:
                    player.cancel()
                    await asyncio.gather(player, return_exceptions=True)

    async def _play(self, ws: ServerConnection, pcm: bytes, rate: int) -> None:
        """Send ``pcm`` in packets due at ``t0 + k * packet_ms`` (t0: the first input)."""
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        size = 2 * rate * self.packet_ms // 1000
        with contextlib.suppress(ConnectionClosed):
            for index, offset in enumerate(range(0, len(pcm), size)):
                delay = t0 + index * self.packet_ms / 1000 - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                await ws.send(pcm[offset:offset + size])


async def serve_replay_until_cancelled(outputs: Path, host: str = "127.0.0.1",
                                       port: int = 0) -> None:
    """Serve the replay agent and print its URL template until cancelled."""
    async with ReplayServer(outputs, host=host, port=port) as server:
        print(f"{server.url}/{{sample_id}}", flush=True)
        await asyncio.Future()
