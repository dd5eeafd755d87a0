"""What a remote model answered, parsed within bounds.

The body of every answer is parsed by :func:`speecheval.core.peer_json.loads` (bounded in
nesting and length), never by ``json.loads`` itself: a server can send anything, and a
body nested 200,000 levels deep must be a bad answer with a reason, not a
``RecursionError``. Each caller words the reason for its own records; these functions say
what is wrong.
"""

from __future__ import annotations

import json
from typing import Any

from ..core import peer_json


class NotACompletion(ValueError):
    """The JSON is not a chat completion with ``choices[0].message.content``."""


class NoTextContent(NotACompletion):
    """The completion's ``choices[0].message.content`` is not text."""


def parse(body: bytes) -> Any:
    """The JSON of an answer's body: ``UnicodeDecodeError``, ``json.JSONDecodeError`` or
    :class:`~speecheval.core.peer_json.PeerJSONLimit` (both ``ValueError``) when it has
    none."""
    return peer_json.loads(body.decode("utf-8"))


def not_json(body: bytes, error: ValueError) -> str:
    """Why ``body`` is not JSON, from the error :func:`parse` raised.

    >>> not_json(b"[[", json.JSONDecodeError("Expecting value", "[[", 2))
    'the answer is not JSON (2 bytes, JSONDecodeError at byte 2)'
    """
    if isinstance(error, peer_json.PeerJSONLimit):
        return f"the answer is not JSON ({len(body)} bytes, {error.reason})"
    position = error.pos if isinstance(error, json.JSONDecodeError) else getattr(
        error, "start", 0)
    return f"the answer is not JSON ({len(body)} bytes, {type(error).__name__} at byte " \
           f"{position})"


def completion(data: Any) -> tuple[str, str | None]:
    """``(choices[0].message.content, the model the server names)`` of a chat completion.

    >>> completion({"model": "m", "choices": [{"message": {"content": "yes"}}]})
    ('yes', 'm')
    >>> completion({"choices": []})
    Traceback (most recent call last):
    ...
    speecheval.remote.answers.NotACompletion: no choices[0].message.content
    """
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise NotACompletion("no choices[0].message.content") from None
    if not isinstance(content, str):
        raise NoTextContent("choices[0].message.content is not text")
    model = data.get("model") if isinstance(data, dict) else None
    return content, model if isinstance(model, str) else None
