"""One session of the cascade agent: listen, wait for the end of the turn, answer, yield.

A turn-based system, built the way cascades are: it hears the user through Silero
(:class:`~.listener.Listener`); when a turn ends (``silence_ms`` of silence after speech)
it recognises the turn and speaks its reply (:class:`~.engine.CascadeEngine`, off the
event loop), streamed in real time, ``chunk_ms`` at a time on an absolute schedule from
the reply's first chunk. Speech heard while it is speaking stops it (barge-in): the
playing reply ends there and that speech starts the next turn. Speech heard while it is
still thinking (before the reply's first chunk) cancels that reply, and the turn goes on:
the next end of turn recognises everything since the unanswered turn began.

Actions are those of the local agents (:class:`~speecheval.agents.local.policy.Action`),
so every wire protocol encodes them unchanged: what :meth:`feed` returns is sent at once,
and what comes later (the reply and its audio) goes out through ``emit``.
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

    def __init__(self, engine: CascadeEngine, rate: int, out_rate: int, emit: Emit) -> None:
        self.engine = engine
        self.out_rate = out_rate
        self.emit = emit
        self.listener = Listener(rate, engine.settings)
        self.heard_ms = 0
        self.replies_started = 0
        self._turn_start_s: float | None = None  # first onset of the unanswered turn
        self._generation = 0  # bumped to abandon the reply being prepared or spoken
        self._speaking = False
        self._task: asyncio.Task[None] | None = None

    def feed(self, pcm: NDArray[np.int16]) -> list[Action]:
        actions: list[Action] = []
        for boundary in self.listener.hear(pcm):
            at_ms = round(boundary.time_s * 1000)
            if boundary.kind == "onset":
                if self._speaking:  # barge-in: the reply was answered; this is a new turn
                    actions.append(Action("interrupted", self._now_ms(), self.replies_started))
                    self._turn_start_s = None
                self._abandon()
                if self._turn_start_s is None:
                    self._turn_start_s = boundary.time_s
                actions.append(Action("speech_started", at_ms, self.replies_started))
            elif self._turn_start_s is not None:
                # up to where the silence became long enough: the same for any packet size
                decided_s = boundary.time_s + self.engine.settings.silence_ms / 1000
                audio = self.listener.audio(self._turn_start_s - PREROLL_S, decided_s)
                self._task = asyncio.get_running_loop().create_task(
                    self._answer(self._generation, audio))
        self.heard_ms = self._now_ms()
        return actions

    def close(self) -> None:
        self._abandon()
        if self._task is not None:
            self._task.cancel()

    def _now_ms(self) -> int:
        return round(self.listener.heard_s * 1000)

    def _abandon(self) -> None:
        """Drop the reply in preparation or playing (its task sees the new generation)."""
        self._generation += 1
        self._speaking = False

    async def _answer(self, generation: int, audio: NDArray[np.float32]) -> None:
        with contextlib.suppress(ConnectionClosed):  # the client left: nobody to answer
            await self._reply(generation, audio)

    async def _reply(self, generation: int, audio: NDArray[np.float32]) -> None:
        reply = await self.engine.answer(audio, self.out_rate)
        if generation != self._generation:
            return
        turn = self.replies_started
        self.replies_started += 1
        self._turn_start_s = None
        self._speaking = True
        await self.emit([Action("transcript", self._now_ms(), turn, text=reply.heard),
                         Action("reply_start", self._now_ms(), self.replies_started,
                                text=reply.text)])
        await self._speak(generation, reply.pcm)

    async def _speak(self, generation: int, pcm: NDArray[np.int16]) -> None:
        """Send ``pcm`` in chunks due at ``t0 + k * chunk_ms``; stop if abandoned."""
        loop = asyncio.get_running_loop()
        chunk_ms = self.engine.settings.chunk_ms
        size = self.out_rate * chunk_ms // 1000
        t0 = loop.time()
        count = -(-pcm.size // size)
        for index in range(count + 1):  # the last step waits for the last chunk to play
            delay = t0 + index * chunk_ms / 1000 - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            if generation != self._generation:
                return
            if index == count:
                break
            chunk = pcm[index * size:(index + 1) * size]
            await self.emit([Action("audio", self._now_ms(), self.replies_started, pcm=chunk)])
        self._speaking = False
        await self.emit([Action("reply_end", self._now_ms(), self.replies_started)])
