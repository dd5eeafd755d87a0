"""Connection handling common to the two JSON realtime transports.

Both speak JSON events over one WebSocket with base64 PCM16 inside; they differ only
in the session they ask for, how they pace input and what they do on an interruption.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ._realtime_events import RealtimeDecoder
from ._ws import parse_json_object
from ._ws_transport import WebSocketTransport
from .base import AgentEvent, AgentFault
from .protocol_events import Realtime

if TYPE_CHECKING:  # pydantic is imported only when a transport is built
    from .transport_options import ConnectionOptions, TransportOptions


class RealtimeWsTransport(WebSocketTransport):
    """JSON-event WebSocket client; subclasses supply the session and the input policy."""

    name = "realtime"

    def __init__(self, opts: TransportOptions[ConnectionOptions]) -> None:
        super().__init__(opts)
        self._decoder: RealtimeDecoder | None = None

    async def _open(self, url: str, headers: Mapping[str, str], decoder: RealtimeDecoder,
                    session_update: dict[str, Any]) -> None:
        self._decoder = decoder
        await self._open_socket(url, headers)
        await self._send_event(session_update)

    def _decode(self, message: str | bytes) -> AgentEvent | None:
        if isinstance(message, bytes):
            return AgentFault(f"{self.name}: agent sent a binary message ({len(message)} "
                              "bytes); this protocol carries audio as base64 in JSON")
        data = parse_json_object(message, self.scrub)
        if isinstance(data, str):
            return AgentFault(data)
        assert self._decoder is not None
        return self._decoder.decode(data)

    async def _append(self, wire_pcm16: bytes) -> None:
        await self._send_event({"type": Realtime.AUDIO_APPEND,
                                "audio": base64.b64encode(wire_pcm16).decode("ascii")})

    async def _send_event(self, event: dict[str, Any]) -> None:
        await self._send_message(json.dumps(event, separators=(",", ":")))
