"""WebSocket plumbing shared by the socket transports: connecting, close reasons, messages.

Every transport turns a broken connection into one readable sentence (``agent dropped
the connection without a close frame``) because that sentence ends up as the session's
fault in the report; nobody should need a traceback to learn what the agent did.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI, PayloadTooBig
from websockets.frames import CloseCode
from websockets.uri import parse_uri

from ..core import peer_json
from ..core.errors import InputError, SystemUnderTestError
from ..core.redact import redact_url

MAX_MESSAGE_BYTES = peer_json.MAX_CHARS
"""The longest message an agent may send, text or audio: past it the client closes the
connection (code 1009) before the message is built, and that is the agent's fault."""

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


async def open_websocket(url: str, *, headers: Mapping[str, str] | None = None,
                         timeout_s: float, ping_interval_s: float,
                         ping_timeout_s: float) -> ClientConnection:
    """Open a client connection or raise SystemUnderTestError naming the (redacted) URL.

    Compression is off: PCM barely compresses and deflate costs CPU on the send path,
    which is the path whose lateness we measure. A message longer than
    :data:`MAX_MESSAGE_BYTES` ends the connection as it arrives (:func:`close_reason`
    names it). Keepalive pings double as stall
    detection: an agent that stops reading its socket stops answering pings, and it
    will not answer a close handshake either, so that wait is as short as a ping's.
    """
    try:
        host = urlsplit(url).hostname
    except ValueError as exc:
        raise InputError(f"bad agent url: {exc}") from exc
    try:
        return await asyncio.wait_for(
            connect(url, additional_headers=dict(headers or {}), max_size=MAX_MESSAGE_BYTES,
                    compression=None, ping_interval=ping_interval_s,
                    ping_timeout=ping_timeout_s, close_timeout=ping_timeout_s,
                    open_timeout=timeout_s,
                    proxy=None if host in _LOOPBACK else True),
            timeout=timeout_s)
    except InvalidURI as exc:
        raise InputError(f"bad agent url {redact_url(url)!r}: {exc.msg}") from None
    except TimeoutError as exc:  # accepted, then silent: no upgrade answer came
        raise SystemUnderTestError(f"cannot connect to {redact_url(url)}: no answer to the "
                                   f"WebSocket handshake within {timeout_s:g} s") from exc
    except (OSError, InvalidHandshake) as exc:
        detail = str(exc) or type(exc).__name__
        raise SystemUnderTestError(f"cannot connect to {redact_url(url)}: {detail}") from exc


def check_url(url: str) -> None:
    """Refuse a URL the WebSocket client cannot use, before any session runs; the message
    shows the URL without its credentials (the client's own message repeats it whole)."""
    try:
        parse_uri(url)
    except InvalidURI as exc:
        raise InputError(f"bad agent url {redact_url(url)!r}: {exc.msg}") from None
    except ValueError as exc:  # e.g. a port out of range
        raise InputError(f"bad agent url {redact_url(url)!r}: {exc}") from None


def close_reason(exc: ConnectionClosed) -> str:
    """Say in words how the connection ended, for the session's fault."""
    too_big = exc.__cause__
    if isinstance(too_big, PayloadTooBig) or (
            exc.sent is not None and exc.sent.code == CloseCode.MESSAGE_TOO_BIG):
        size = getattr(too_big, "size", None)  # the frame's: the message's if unfragmented
        whole = getattr(too_big, "current_size", None) is None
        told = f"of {size} bytes, " if isinstance(size, int) and whole else ""
        return (f"agent sent a message {told}more than the limit of {MAX_MESSAGE_BYTES} "
                "bytes")
    if exc.rcvd is not None:
        reason = f": {exc.rcvd.reason}" if exc.rcvd.reason else ""
        return f"agent closed the connection (code {exc.rcvd.code}{reason})"
    if exc.sent is not None and exc.sent.reason == "keepalive ping timeout":
        return "agent stalled: it stopped answering keepalive pings"
    return "agent dropped the connection without a close frame"


def api_key_from_env(variable: str, transport: str) -> str | None:
    """Read the API key from the named environment variable; '' means no key at all.

    The key is only ever placed in a request header; callers must not store it anywhere
    that reaches an event, a log or a report.
    """
    if not variable:
        return None
    key = os.environ.get(variable)
    if not key:
        raise InputError(f"{transport}: environment variable {variable} is not set "
                         "(set it, or pass -o api_key_env= for an agent without a key)")
    return key


def parse_json_object(text: str, scrub: Callable[[str], str]) -> dict[str, Any] | str:
    """Parse one JSON text message; return the object, or a fault reason if it is not one.

    The parse is bounded (:mod:`speecheval.core.peer_json`): a message nested too deep
    is a fault like any other bad JSON, never an exception that kills the receive loop.
    The reason quotes the start of the message, scrubbed before it is cut: a secret the
    agent echoed must not survive as a truncated fragment.
    """
    try:
        data = peer_json.loads(text)
    except peer_json.PeerJSONLimit as exc:
        return f"agent sent JSON {exc.reason}: {scrub(text)[:60]!r}"
    except json.JSONDecodeError as exc:
        return (f"malformed JSON from agent ({exc.msg} at char {exc.pos}): "
                f"{scrub(text)[:60]!r}")
    if not isinstance(data, dict):
        return (f"agent sent a JSON {type(data).__name__}, expected an object: "
                f"{scrub(text)[:60]!r}")
    return data
