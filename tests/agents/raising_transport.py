"""A custom agent (``module:Class``) whose transport raises mid-session, as one broken by
a message it could not handle does: the echo agent of ``custom_transport`` (the user's
audio back 100 ms later) until it has yielded ``after`` events or been sent ``after``
frames, then it raises ``error`` (a builtin exception's name) from ``events`` or
``send_audio`` (``where``). With ``url`` and ``only`` it raises only in sessions whose URL
ends with ``only`` (``-o url=echo/{sample_id}`` routes by sample)."""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator

from speecheval.agents.base import AgentEvent
from tests.agents.custom_transport import EchoTransport

MESSAGE = "raised by the test transport"


class RaisingTransport(EchoTransport):
    def __init__(self, error: str = "RecursionError", where: str = "events",
                 after: str = "5", url: str = "", only: str = "") -> None:
        super().__init__()
        exception = getattr(builtins, error)
        assert isinstance(exception, type) and issubclass(exception, Exception), error
        self.exception = exception
        self.where, self.after = where, int(after)
        self.armed = url.endswith(only)
        self.frames = 0

    def _maybe_raise(self, where: str, count: int) -> None:
        if self.armed and self.where == where and count >= self.after:
            raise self.exception(MESSAGE)

    async def send_audio(self, pcm16: bytes) -> None:
        self.frames += 1
        self._maybe_raise("send_audio", self.frames)
        await super().send_audio(pcm16)

    async def events(self) -> AsyncIterator[AgentEvent]:
        count = 0
        async for event in super().events():
            yield event
            count += 1
            self._maybe_raise("events", count)
