"""One HTTP request to a remote model or a signalling server, and what can go wrong with it.

Every module that speaks HTTP (the transcription recogniser, the judges, the ``/v1/models``
probe of ``record``, WebRTC signalling) sends through :func:`send`, so a timeout, a
refused or dropped connection, a cut-off answer and an HTTP error status are told apart in
one place and each caller only decides what they mean for it:

- a 2xx answer is a :class:`Reply` (its status and body);
- an HTTP error status is :class:`ErrorAnswer` (the status, the server's own message and
  its ``Retry-After``);
- no whole answer (refused, dropped, timed out, cut off) is :class:`NoAnswer`.

A request that carries a key is sent without following redirects (``follow_redirects``
off, the default): ``urllib`` would resend every header, ``Authorization`` included, to
wherever the server points, so a 3xx is an :class:`ErrorAnswer` instead.
"""

from __future__ import annotations

import http.client
import math
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..core import peer_json

DETAIL_CHARS = 300
"""How much of a server's error message a reason quotes."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are not followed (see the module docstring)."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_NOT_FOLLOWING = urllib.request.build_opener(_NoRedirect)
_FOLLOWING = urllib.request.build_opener()


@dataclass(frozen=True)
class Reply:
    """A 2xx answer: its status and its body (at most ``limit`` bytes when one was given)."""

    status: int
    body: bytes


class NoAnswer(Exception):
    """No whole answer came: the connection was refused or dropped, it timed out, or the
    answer was cut off. ``reason`` says so naming the URL; ``text`` is the underlying
    error as the standard library words it."""

    def __init__(self, reason: str, text: str) -> None:
        self.reason, self.text = reason, text
        super().__init__(reason)


class ErrorAnswer(Exception):
    """The server answered with an HTTP error status (or a redirect not followed)."""

    def __init__(self, error: urllib.error.HTTPError) -> None:
        self.status: int = error.code
        self.phrase: str = str(error.reason)
        self._error = error
        super().__init__(f"HTTP Error {self.status}: {self.phrase}")

    @cached_property
    def detail(self) -> str:
        """The server's own message (OpenAI's ``{"error": {"message": ...}}``) or its
        body, on one line, at most :data:`DETAIL_CHARS` characters."""
        try:
            raw = self._error.read()
        except (OSError, http.client.HTTPException):
            raw = b""
        text = raw.decode("utf-8", "replace").strip()
        try:
            message = peer_json.loads(text)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = text or self._error.reason
        return " ".join(str(message).split())[:DETAIL_CHARS]

    @property
    def retry_after_s(self) -> float | None:
        """The server's ``Retry-After`` in seconds, when it gives a number."""
        headers = self._error.headers
        value = headers.get("Retry-After") if headers else None
        try:
            seconds = float(value) if value is not None else None
        except ValueError:
            return None
        return seconds if seconds is not None and math.isfinite(seconds) and seconds >= 0 \
            else None


def send(url: str, *, body: bytes | None = None, headers: Mapping[str, str] | None = None,
         timeout_s: float, limit: int | None = None, follow_redirects: bool = False) -> Reply:
    """One request (a POST when there is a ``body``, a GET otherwise); the 2xx
    :class:`Reply`, or :class:`ErrorAnswer` / :class:`NoAnswer`. A URL ``urllib``
    cannot send to (an unknown scheme) is ``ValueError``, the caller's mistake."""
    request = urllib.request.Request(url, data=body, headers=dict(headers or {}),
                                     method="POST" if body is not None else "GET")
    opener = _FOLLOWING if follow_redirects else _NOT_FOLLOWING
    try:
        with opener.open(request, timeout=timeout_s) as answer:
            data: bytes = answer.read() if limit is None else answer.read(limit)
            return Reply(int(answer.status), data)
    except urllib.error.HTTPError as error:
        raise ErrorAnswer(error) from None
    except http.client.IncompleteRead as exc:
        raise NoAnswer(f"the answer was cut off after {len(exc.partial)} bytes",
                       str(exc)) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        raise NoAnswer(f"no answer from {url}: {reason or type(exc).__name__}",
                       str(exc)) from None
