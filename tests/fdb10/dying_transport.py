"""A custom agent (``module:Class``) for the record executor tests: it echoes the user's
audio back 100 ms later, in-process, except in a session whose URL ends with ``/2``
(``-o url=.../{sample_id}`` routes by sample): there it kills the worker process running
the session as it connects, every time, as a crash in native code would."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator

from speecheval.agents.base import AgentEvent, AgentTransport, AudioOut


class KillOnConnect(AgentTransport):
    def __init__(self, url: str) -> None:
        self.url = url
        self.queue: asyncio.Queue[AgentEvent | None] = asyncio.Queue()

    async def connect(self, sample_rate: int) -> None:
        if self.url.endswith("/2"):
            os.kill(os.getpid(), signal.SIGKILL)

    async def send_audio(self, pcm16: bytes) -> None:
        asyncio.get_running_loop().call_later(0.1, self.queue.put_nowait, AudioOut(pcm16))

    async def events(self) -> AsyncIterator[AgentEvent]:
        while (event := await self.queue.get()) is not None:
            yield event

    async def report_played(self, played_ms: int) -> None:
        return None

    async def end_input(self) -> None:
        return None

    async def close(self) -> None:
        self.queue.put_nowait(None)
