"""One session of the cascade agent: listen, wait for the end of the turn, answer, yield.

A turn-based system, built the way cascades are: it hears the user through Silero
(:class:`~.listener.Listener`); when a turn ends (``silence_ms`` of silence after speech)
it recognises the turn and chooses and speaks its reply (:class:`~.engine.CascadeEngine`,
off the event loop). Speech heard while it is speaking stops it (barge-in): the reply
ends there and that speech starts the next turn. Speech heard while it is still thinking
cancels that reply, and the turn goes on: the next end of turn recognises everything
since the unanswered turn began.

Output runs on the session's own clock, from the first audio heard: every ``chunk_ms``
(80 ms) on an absolute schedule it sends the next chunk of the reply, so a reply streams
in real time and starts on the next tick after it is ready. Between replies it sends
nothing, or, with ``continuous`` (the full-duplex ``native-realtime`` protocol, whose
output is one unbroken stream), a chunk of silence.

Actions are those of the local agents (:class:`~speecheval.agents.local.policy.Action`),
so every wire protocol encodes them unchanged: what :meth:`feed` returns is sent at once,
and what comes later goes out through ``emit``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import numpy as np
from numpy.typing import NDArray
from websockets.exceptions import ConnectionClosed

from ..local.policy import Action
from .engine import CascadeEngine
from .listener import Listener

PREROLL_S = 0.2  # audio kept before the turn's first onset, so its first word is whole

Emit = Callable[[list[Action]], Awaitable[None]]


class CascadePolicy:
    """A :class:`~speecheval.agents.local.policy.SessionPolicy` with its own clock."""

    def __init__(self, engine: CascadeEngine, rate: int, out_rate: int, emit: Emit,
                 continuous: bool = False) -> None:
        self.engine = engine
        self.out_rate = out_rate
        self.emit = emit
        self.continuous = continuous
        self.chunk = out_rate * engine.settings.options.chunk_ms // 1000
        self.listener = Listener(rate, engine.settings)
        self.heard_ms = 0
        self.replies_started = 0
        self._turn_start_s: float | None = None  # first onset of the unanswered turn
        self._generation = 0  # bumped to abandon the reply being prepared
        self._reply: NDArray[np.int16] | None = None  # the reply being spoken
        self._position = 0  # samples of it sent
        self._tasks: set[asyncio.Task[None]] = set()
        self._clock: asyncio.Task[None] | None = None

    def feed(self, pcm: NDArray[np.int16]) -> list[Action]:
        if self._clock is None:
            self._clock = self._start(self._speak_on_clock())
        actions: list[Action] = []
        for boundary in self.listener.hear(pcm):
            if boundary.kind == "onset":
                if self._reply is not None:  # barge-in: that turn was answered
                    actions.append(Action("interrupted", self._now_ms(), self.replies_started))
                    self._reply = None
                    self._turn_start_s = None
                self._generation += 1  # a reply still in preparation is dropped
                if self._turn_start_s is None:
                    self._turn_start_s = boundary.time_s
                actions.append(Action("speech_started", round(boundary.time_s * 1000),
                                      self.replies_started))
            elif self._turn_start_s is not None:
                # up to where the silence became long enough: the same for any packet size
                decided_s = boundary.time_s + self.engine.settings.options.silence_ms / 1000
                audio = self.listener.audio(self._turn_start_s - PREROLL_S, decided_s)
                self._start(self._answer(self._generation, audio))
        self.heard_ms = self._now_ms()
        return actions

    def close(self) -> None:
        self._generation += 1
        for task in [*self._tasks]:
            task.cancel()

    def _start(self, work: Awaitable[None]) -> asyncio.Task[None]:
        async def guarded() -> None:
            with contextlib.suppress(ConnectionClosed):  # the client left: nobody to answer
                await work

        task = asyncio.get_running_loop().create_task(guarded())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _now_ms(self) -> int:
        return round(self.listener.heard_s * 1000)

    async def _answer(self, generation: int, audio: NDArray[np.float32]) -> None:
        reply = await self.engine.answer(audio, self.out_rate,
                                         wanted=lambda: generation == self._generation)
        if reply is None or generation != self._generation:
            return
        turn = self.replies_started
        self.replies_started += 1
        self._turn_start_s = None
        self._reply, self._position = reply.pcm, 0
        await self.emit([Action("transcript", self._now_ms(), turn, text=reply.heard),
                         Action("reply_start", self._now_ms(), self.replies_started,
                                text=reply.text)])

    async def _speak_on_clock(self) -> None:
        """Every ``chunk_ms`` from the first audio heard: the next reply chunk, or silence
        (``continuous``) or nothing. A reply ends one tick after its last chunk left."""
        loop = asyncio.get_running_loop()
        period = self.engine.settings.options.chunk_ms / 1000
        t0 = loop.time()
        tick = 0
        silence = np.zeros(self.chunk, np.int16)
        while True:
            actions: list[Action] = []
            if self._reply is not None and self._position >= self._reply.size:
                self._reply = None
                actions.append(Action("reply_end", self._now_ms(), self.replies_started))
            if self._reply is not None:
                chunk = self._reply[self._position:self._position + self.chunk]
                self._position += self.chunk
                actions.append(Action("audio", self._now_ms(), self.replies_started, pcm=chunk))
            elif self.continuous:
                actions.append(Action("audio", self._now_ms(), self.replies_started,
                                      pcm=silence))
            if actions:
                await self.emit(actions)
            tick += 1
            delay = t0 + tick * period - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
