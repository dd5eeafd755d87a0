"""A custom agent (``module:Class``) for the record executor tests: the echo agent of
tests/agents (the user's audio back 100 ms later, in-process), except in a session whose
URL ends with ``/2`` (``-o url=.../{sample_id}`` routes by sample): there it kills the
worker process running the session as it connects, every time, as a crash in native code
would."""

from __future__ import annotations

import os
import signal

from tests.agents.custom_transport import EchoTransport


class KillOnConnect(EchoTransport):
    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    async def connect(self, sample_rate: int) -> None:
        if self.url.endswith("/2"):
            os.kill(os.getpid(), signal.SIGKILL)
        await super().connect(sample_rate)
