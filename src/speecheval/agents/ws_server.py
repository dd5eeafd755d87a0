"""The WebSocket server under every agent speecheval serves itself (the local agents, replay).

``async with`` listens on ``host:port`` (port 0: a free one) and sets ``url`` to the
address actually bound, so a caller can start a server and hand its URL to the session
runner without choosing a port. A port or address that cannot be had is a usage problem,
not a bug: it becomes one :class:`~speecheval.core.errors.InputError` line.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Self

from websockets.asyncio.server import Server, ServerConnection, serve

from ..core.errors import InputError

CLOSE_TIMEOUT_S = 1.0  # shutting down must not wait 10 s for a stalled connection


class LoopbackServer(ABC):
    """Serves :meth:`_handle` for each connection while the ``async with`` block runs."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self._server: Server | None = None
        self.url = ""

    async def __aenter__(self) -> Self:
        try:
            self._server = await serve(self._handle, self.host, self.port, compression=None,
                                       max_size=None, close_timeout=CLOSE_TIMEOUT_S)
        except OSError as exc:
            raise self._listen_error(exc) from None
        host, port = next(iter(self._server.sockets)).getsockname()[:2]
        self.url = f"ws://{host}:{port}{self._url_path()}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def _listen_error(self, exc: OSError) -> InputError:
        """What the user is told when ``host:port`` cannot be listened on."""
        return InputError(f"cannot listen on {self.host}:{self.port}: {exc.strerror or exc}")

    def _url_path(self) -> str:
        """The path ``url`` ends with (none by default)."""
        return ""

    @abstractmethod
    async def _handle(self, ws: ServerConnection) -> None:
        """Serve one connection until it closes."""
