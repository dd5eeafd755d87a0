"""Connection handling common to the two JSON realtime transports.

Both speak JSON events over one WebSocket with base64 PCM16 inside; they differ only
in the session they ask for, how they pace input and what they do on an interruption.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from ..core.errors import SystemUnderTestError
from ._realtime_events import RealtimeDecoder
from ._ws import close_reason, open_websocket, parse_json_object
from .base import AgentEvent, AgentFault


class RealtimeWsTransport:
    """JSON-event WebSocket client; subclasses supply the session and the input policy."""

    name = "realtime"

    def __init__(self, *, connect_timeout_s: float, ping_interval_s: float,
                 ping_timeout_s: float) -> None:
        self.connect_timeout_s = connect_timeout_s
        self.ping_interval_s = ping_interval_s
        self.ping_timeout_s = ping_timeout_s
        self._ws: ClientConnection | None = None
        self._decoder: RealtimeDecoder | None = None
        self._closing = False

    async def _open(self, url: str, headers: Mapping[str, str], decoder: RealtimeDecoder,
                    session_update: dict[str, Any]) -> None:
        self._decoder = decoder
        self._ws = await open_websocket(url, headers=headers, timeout_s=self.connect_timeout_s,
                                        ping_interval_s=self.ping_interval_s,
                                        ping_timeout_s=self.ping_timeout_s)
        await self._send_event(session_update)

    async def events(self) -> AsyncIterator[AgentEvent]:
        ws = self._connection()
        try:
            async for message in ws:
                event = self._decode(message)
                if event is None:
                    continue
                yield event
                if isinstance(event, AgentFault):
                    return
        except ConnectionClosed as exc:
            if not self._closing:
                yield AgentFault(close_reason(exc))
            return
        if not self._closing:
            yield AgentFault("agent closed the connection (code 1000)")

    async def close(self) -> None:
        self._closing = True
        if self._ws is not None:
            await self._ws.close()

    def _decode(self, message: str | bytes) -> AgentEvent | None:
        if isinstance(message, bytes):
            return AgentFault(f"{self.name}: agent sent a binary message ({len(message)} "
                              "bytes); this protocol carries audio as base64 in JSON")
        data = parse_json_object(message)
        if isinstance(data, str):
            return AgentFault(data)
        assert self._decoder is not None
        return self._decoder.decode(data)

    async def _append(self, wire_pcm16: bytes) -> None:
        await self._send_event({"type": "input_audio_buffer.append",
                                "audio": base64.b64encode(wire_pcm16).decode("ascii")})

    async def _send_event(self, event: dict[str, Any]) -> None:
        ws = self._connection()
        try:
            await ws.send(json.dumps(event, separators=(",", ":")))
        except ConnectionClosed as exc:
            raise SystemUnderTestError(close_reason(exc)) from exc

    def _connection(self) -> ClientConnection:
        if self._ws is None:
            raise SystemUnderTestError(f"{self.name}: not connected")
        return self._ws
