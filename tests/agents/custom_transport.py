"""A custom transport loaded by ``module:Class`` in the registry test.

It is a real (if simple) agent: it echoes the user's audio back 100 ms later, in-process.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from speecheval.agents.base import AgentEvent, AudioOut


class EchoTransport:
    def __init__(self, delay_ms: str = "100") -> None:
        self.delay_s = int(delay_ms) / 1000
        self.queue: asyncio.Queue[AgentEvent | None] = asyncio.Queue()

    async def connect(self, sample_rate: int) -> None:
        self.sample_rate = sample_rate

    async def send_audio(self, pcm16: bytes) -> None:
        asyncio.get_running_loop().call_later(self.delay_s, self.queue.put_nowait,
                                              AudioOut(pcm16))

    async def events(self) -> AsyncIterator[AgentEvent]:
        while (event := await self.queue.get()) is not None:
            yield event

    async def report_played(self, played_ms: int) -> None:
        return None

    async def end_input(self) -> None:
        return None

    async def close(self) -> None:
        self.queue.put_nowait(None)
