"""Custom agents loaded by ``module:Class`` in the tests.

``EchoTransport`` is a real (if simple) agent: it echoes the user's audio back 100 ms
later, in-process. The others fail on purpose: ``LeakyTransport`` and
``LeakyVirtualAgent`` quote their credentials in an error, ``LateFailingAgent`` is the
mock failing at a given time, ``DyingVirtualAgent`` ends its process,
``HalfOpenTransport`` fails (or hangs) in connect after
opening a socket.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

import numpy as np
from numpy.typing import NDArray

from speecheval.agents.base import (
    AgentEvent,
    AgentFault,
    AgentTransport,
    AudioOut,
    VirtualClockAgent,
)
from speecheval.agents.mock import MockAgent, MockSettings


class EchoTransport(AgentTransport):
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


class LeakyTransport(AgentTransport):
    """A careless agent: after ten frames it fails with an error quoting the credentials it
    was given (URL, ``token``, ``headers``) and the key variable ``token_env`` names, as a
    server echoing a rejected request does. It scrubs nothing itself: the session must."""

    def __init__(self, url: str, token: str = "", headers: str = "{}",
                 token_env: str = "LEAKY_TOKEN") -> None:
        self.url, self.token, self.headers, self.token_env = url, token, headers, token_env
        self.queue: asyncio.Queue[AgentEvent | None] = asyncio.Queue()
        self.frames = 0

    async def connect(self, sample_rate: int) -> None:
        return None

    async def send_audio(self, pcm16: bytes) -> None:
        self.frames += 1
        if self.frames == 10:
            self.queue.put_nowait(AgentFault(
                f"rejected {self.url} token {self.token} headers {self.headers} "
                f"key {os.environ.get(self.token_env)}"))

    async def events(self) -> AsyncIterator[AgentEvent]:
        while (event := await self.queue.get()) is not None:
            yield event

    async def report_played(self, played_ms: int) -> None:
        return None

    async def end_input(self) -> None:
        return None

    async def close(self) -> None:
        self.queue.put_nowait(None)


class LeakyVirtualAgent(VirtualClockAgent):
    """The same carelessness on the virtual clock: raises quoting its token and key."""

    def __init__(self, token: str = "", token_env: str = "LEAKY_TOKEN") -> None:
        self.token, self.token_env = token, token_env

    def start(self, sample_rate: int) -> None:
        return None

    def process(self, frame: NDArray[np.int16], t_s: float) -> list[AgentEvent]:
        if t_s >= 0.2:
            raise RuntimeError(f"bad token {self.token}, key {os.environ.get(self.token_env)}")
        return []


class LateFailingAgent(VirtualClockAgent):
    """The mock agent on the virtual clock, failing once the session passes ``fail_at_s``
    (a plug-in: its error is the agent's fault, recorded with its ``message``)."""

    def __init__(self, fail_at_s: float = 1.0,
                 message: str = "the model server lost its GPU", **options: object) -> None:
        self.mock = MockAgent(MockSettings.from_options(dict(options)))
        self.fail_at_s = fail_at_s
        self.message = message

    def start(self, sample_rate: int) -> None:
        self.mock.start(sample_rate)

    def process(self, frame: NDArray[np.int16], t_s: float) -> list[AgentEvent]:
        if t_s >= self.fail_at_s:
            raise RuntimeError(self.message)
        return self.mock.process(frame, t_s)


class DyingVirtualAgent(VirtualClockAgent):
    """A virtual-clock agent whose process ends (as a native crash or the OOM killer ends
    it) when the session reaches 0.1 s: run it only in worker processes."""

    def start(self, sample_rate: int) -> None:
        return None

    def process(self, frame: NDArray[np.int16], t_s: float) -> list[AgentEvent]:
        if t_s >= 0.1:
            os._exit(9)
        return []


class NotAnAgent:
    """A class with every transport method that does not say it is one: refused."""

    def __init__(self, **options: str) -> None:
        self.options = options


class HalfTransport(AgentTransport):
    """Declares itself a transport but lacks its methods: Python refuses to build it."""

    def __init__(self, **options: str) -> None:
        self.options = options


class HalfOpenTransport(AgentTransport):
    """An agent whose connect opens a real socket and then fails (``fail``) or never
    finishes (``hang``); only ``close()`` releases the socket. ``close_fails`` makes that
    close raise after releasing it, as a half-open transport's close may."""

    def __init__(self, mode: str = "fail", close_fails: str = "no") -> None:
        import socket

        self.mode, self.close_fails = mode, close_fails == "yes"
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    async def connect(self, sample_rate: int) -> None:
        from speecheval.core.errors import SystemUnderTestError

        self.socket.bind(("127.0.0.1", 0))
        if self.mode == "hang":
            await asyncio.Event().wait()
        raise SystemUnderTestError("half-open: the agent refused the session")

    async def send_audio(self, pcm16: bytes) -> None:
        raise AssertionError("never connected")

    async def events(self) -> AsyncIterator[AgentEvent]:
        raise AssertionError("never connected")
        yield  # an async generator

    async def report_played(self, played_ms: int) -> None:
        return None

    async def end_input(self) -> None:
        return None

    async def close(self) -> None:
        self.socket.close()
        if self.close_fails:
            raise OSError("half-open: close failed too")
