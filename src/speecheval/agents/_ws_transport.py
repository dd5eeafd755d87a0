"""The connection life cycle every WebSocket transport shares.

A transport subclass only says how to decode one message; opening, the receive loop that
turns a dropped or closed connection into an :class:`AgentFault`, sending, and closing
live here once. So does scrubbing: every fault reason and connection error passes
through the transport's :class:`~speecheval.core.redact.Redactor`, so an agent that
echoes a token from the URL, a header or the API key variable cannot get it into a
report.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from ..core.errors import SystemUnderTestError
from ..core.redact import Redactor
from ._ws import check_url, close_reason, open_websocket
from .base import AgentEvent, AgentFault, AgentTransport

if TYPE_CHECKING:  # pydantic is imported only when a transport is built
    from .transport_options import ConnectionOptions, TransportOptions


class WebSocketTransport(AgentTransport):
    """Base of the socket transports; subclasses implement :meth:`_decode`.

    Every transport takes the options of
    :class:`~speecheval.agents.transport_options.ConnectionOptions` (a required ``url``
    unless its defaults give one, and the connection timeouts) besides its own.
    """

    name = "websocket"

    def __init__(self, opts: TransportOptions[ConnectionOptions]) -> None:
        self.url = opts.required("url")
        check_url(self.url)
        self.connect_timeout_s = opts.parsed.connect_timeout_s
        self.ping_interval_s = opts.parsed.ping_interval_s
        self.ping_timeout_s = opts.parsed.ping_timeout_s
        self._redactor = Redactor(opts.text)
        self._ws: ClientConnection | None = None
        self._closing = False

    def scrub(self, text: str) -> str:
        """``text`` without this transport's secrets (see :mod:`speecheval.core.redact`)."""
        return self._redactor.scrub(text)

    @contextlib.contextmanager
    def _scrubbed_errors(self) -> Iterator[None]:
        """Re-raise a SystemUnderTestError with its message scrubbed (it may quote the agent)."""
        try:
            yield
        except SystemUnderTestError as exc:
            raise SystemUnderTestError(self.scrub(str(exc))) from None

    async def _open_socket(self, url: str, headers: Mapping[str, str] | None) -> None:
        with self._scrubbed_errors():
            self._ws = await open_websocket(url, headers=headers,
                                            timeout_s=self.connect_timeout_s,
                                            ping_interval_s=self.ping_interval_s,
                                            ping_timeout_s=self.ping_timeout_s)

    def _decode(self, message: str | bytes) -> AgentEvent | None:
        """One agent message as an event; None for messages the protocol ignores."""
        raise NotImplementedError

    async def events(self) -> AsyncIterator[AgentEvent]:
        """Agent events until the connection ends; a fault is the last event."""
        ws = self._connection()
        try:
            async for message in ws:
                event = self._decode(message)
                if event is None:
                    continue
                if isinstance(event, AgentFault):
                    yield AgentFault(self.scrub(event.reason))
                    return
                yield event
        except ConnectionClosed as exc:
            if not self._closing:
                yield AgentFault(self.scrub(close_reason(exc)))
            return
        if not self._closing:
            yield AgentFault("agent closed the connection (code 1000)")

    async def close(self) -> None:
        self._closing = True
        if self._ws is not None:
            await self._ws.close()

    async def _send_message(self, message: str | bytes) -> None:
        ws = self._connection()
        try:
            await ws.send(message)
        except ConnectionClosed as exc:
            raise SystemUnderTestError(self.scrub(close_reason(exc))) from None

    def _connection(self) -> ClientConnection:
        if self._ws is None:
            raise SystemUnderTestError(f"{self.name}: not connected")
        return self._ws
