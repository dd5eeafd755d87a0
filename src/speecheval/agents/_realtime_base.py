"""Connection handling common to the two JSON realtime transports.

Both speak JSON events over one WebSocket with base64 PCM16 inside; they differ only
in the session they ask for, how they pace input and what they do on an interruption.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from websockets.exceptions import ConnectionClosed

from ..core.errors import SystemUnderTestError
from ._realtime_events import RealtimeDecoder, error_text
from ._ws import close_reason, parse_json_object
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

    async def _expect(self, kind: str) -> dict[str, Any]:
        """Read handshake messages until ``kind``; an error event or anything broken fails.

        The runner bounds the whole connect; ``connect_timeout_s`` bounds each wait too.
        """
        ws = self._connection()
        try:
            async with asyncio.timeout(self.connect_timeout_s):
                while True:
                    message = await ws.recv()
                    data = (parse_json_object(message, self.scrub) if isinstance(message, str)
                            else "agent sent a binary message during the handshake")
                    if isinstance(data, str):
                        raise SystemUnderTestError(f"{self.name}: {data}")
                    if data.get("type") == "error":
                        raise SystemUnderTestError(
                            f"{self.name}: agent refused the session while waiting for {kind}: "
                            f"{error_text(data.get('error'))}")
                    if data.get("type") == kind:
                        return data
        except TimeoutError as exc:
            raise SystemUnderTestError(f"{self.name}: no {kind} from the agent within "
                                       f"{self.connect_timeout_s:g} s") from exc
        except ConnectionClosed as exc:
            raise SystemUnderTestError(f"{self.name}: {close_reason(exc)} while waiting for "
                                       f"{kind}") from exc

    async def _close_session(self, close_event: dict[str, Any], closed_kind: str,
                             wait_s: float) -> None:
        """Send ``close_event`` and read on up to ``wait_s`` for ``closed_kind``; a stalled
        or gone agent only ends the wait (the caller hangs up after it)."""
        ws = self._connection()
        with contextlib.suppress(SystemUnderTestError, TimeoutError, ConnectionClosed):
            async with asyncio.timeout(wait_s):  # a stalled agent blocks the send
                await self._send_event(close_event)
                async for message in ws:
                    data = (parse_json_object(message, self.scrub)
                            if isinstance(message, str) else "")
                    if isinstance(data, dict) and data.get("type") == closed_kind:
                        break
