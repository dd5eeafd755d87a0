"""``speecheval agents serve cascade``: the cascade agent on the local agents' server.

The wire protocols (``pcm-websocket``, ``openai-realtime``, ``native-realtime``) are
those of :class:`~speecheval.agents.local.server.ProtocolServer`, unchanged; this module
only gives each session a :class:`~.policy.CascadePolicy` and loads the shared
:class:`~.engine.CascadeEngine` once, before the first connection is accepted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from ..local.policy import SessionPolicy, TurnSettings
from ..local.server import AgentConfig, ProtocolServer
from .engine import CascadeEngine
from .options import CascadeSettings
from .policy import CascadePolicy


class CascadeAgentServer(ProtocolServer):
    """``async with CascadeAgentServer("native-realtime", {...}) as agent: agent.url``."""

    def __init__(self, protocol: str, options: Mapping[str, str] | None = None,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        settings = CascadeSettings.parse(protocol, dict(options or {}))
        # the protocol layer's view: rates only; no scripted replies, no faults
        config = AgentConfig(kind="cascade", protocol=protocol,
                             sample_rate=settings.options.sample_rate,
                             output_rate=settings.options.output_rate,
                             settings=TurnSettings(), reply_texts=[], reply_ms=None,
                             voice="espeak", transcripts=[], pacing="paced", fault="",
                             fault_after_ms=0)
        super().__init__(config, host, port)
        self.engine = CascadeEngine(settings)

    async def __aenter__(self) -> CascadeAgentServer:
        await self.engine.start()
        try:
            return await super().__aenter__()
        except BaseException:
            self.engine.close()
            raise

    async def __aexit__(self, *exc: object) -> None:
        try:
            await super().__aexit__(*exc)
        finally:
            self.engine.close()

    def new_policy(self, session: Any, rate: int, out_rate: int) -> SessionPolicy:
        return CascadePolicy(self.engine, rate, out_rate, session.act,
                             continuous=self.config.protocol == "native-realtime")


async def serve_cascade_until_cancelled(protocol: str, options: Mapping[str, str],
                                        host: str = "127.0.0.1", port: int = 0) -> None:
    """Serve the cascade agent and print its URL (flushed, for a parent process)."""
    async with CascadeAgentServer(protocol, options, host=host, port=port) as agent:
        print(agent.url, flush=True)
        await asyncio.Future()
