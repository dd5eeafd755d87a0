"""A bounded check that a Ray address answers before ``ray.init`` is handed it.

Why: ``ray.init(address=...)`` retries a cluster that is not there for many minutes,
printing a warning every few seconds (a closed port, a typo'd host, a server that accepts
the connection and then says nothing). A batch command should instead stop at once with
one line naming the address. Ray's head (its GCS) and Ray Client servers speak gRPC, that
is HTTP/2, and an HTTP/2 server's first frame is always SETTINGS; so the probe opens a
TCP connection, sends the HTTP/2 connection preface and waits for that frame, all within
:data:`CONNECT_TIMEOUT_S`. It needs nothing but the standard library, so it also works
where Ray is not installed.

Passing the probe only means a gRPC server answers there; ``ray.init`` then does the
rest (and says so itself when the server is not a Ray cluster).
"""

from __future__ import annotations

import socket
import time

from .errors import InputError

CONNECT_TIMEOUT_S = 5.0
"""Seconds the whole probe (connect, preface, first frame) may take."""

HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
EMPTY_SETTINGS = bytes([0, 0, 0, 0x4, 0, 0, 0, 0, 0])
"""An HTTP/2 SETTINGS frame without settings: length 0, type 4, no flags, stream 0."""
FRAME_HEADER_BYTES = 9
SETTINGS_FRAME_TYPE = 0x4


def host_and_port(address: str) -> tuple[str, int] | None:
    """The TCP endpoint of a ``HOST:PORT`` or ``ray://HOST:PORT`` address; None for an
    address Ray resolves itself (``auto``, ``local``) or one of another form.

    >>> host_and_port("127.0.0.1:6379"), host_and_port("ray://head:10001")
    (('127.0.0.1', 6379), ('head', 10001))
    >>> host_and_port("auto") is None, host_and_port("[::1]:6379")
    (True, ('::1', 6379))
    """
    rest = address.removeprefix("ray://")
    host, colon, port = rest.rpartition(":")
    if not colon or not host or not port.isdigit():
        return None
    return host.removeprefix("[").removesuffix("]"), int(port)


def probe_ray_address(address: str, timeout_s: float | None = None) -> None:
    """Return when a gRPC server answers at ``address`` within ``timeout_s`` seconds
    (default :data:`CONNECT_TIMEOUT_S`); else an :class:`InputError` (exit 2),
    ``cannot reach the Ray cluster at ADDRESS: ...`` with what went wrong. Addresses
    that :func:`host_and_port` does not parse are left to Ray.
    """
    endpoint = host_and_port(address)
    if endpoint is None:
        return
    timeout_s = CONNECT_TIMEOUT_S if timeout_s is None else timeout_s
    deadline = time.monotonic() + timeout_s
    try:
        with socket.create_connection(endpoint, timeout=timeout_s) as connection:
            connection.sendall(HTTP2_PREFACE + EMPTY_SETTINGS)
            header = _read(connection, FRAME_HEADER_BYTES, deadline)
    except TimeoutError:
        raise InputError(f"cannot reach the Ray cluster at {address}: no answer within "
                         f"{timeout_s:g} s") from None
    except OSError as error:
        raise InputError(f"cannot reach the Ray cluster at {address}: "
                         f"{error.strerror or error}") from None
    if len(header) < FRAME_HEADER_BYTES or header[3] != SETTINGS_FRAME_TYPE:
        raise InputError(f"cannot reach the Ray cluster at {address}: the server there "
                         "does not speak gRPC (not a Ray head or Ray Client port)")


def _read(connection: socket.socket, size: int, deadline: float) -> bytes:
    """Up to ``size`` bytes, fewer if the peer closes first; TimeoutError past
    ``deadline`` (a server that trickles bytes cannot stretch the bound)."""
    data = b""
    while len(data) < size:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        connection.settimeout(left)
        chunk = connection.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data
