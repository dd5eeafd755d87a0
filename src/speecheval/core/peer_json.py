"""JSON that another machine sent, parsed within bounds on its nesting and its length.

Agents, ASR servers, judges and signalling servers are systems we measure or services we
do not control, so everything they send is parsed here, never by ``json.loads`` itself.
The standard parser descends once per level of nesting: a message 200,000 levels deep
makes it raise ``RecursionError``, which is not a ``ValueError``, so it escapes every
handler written for bad JSON and kills whatever task was reading. A message of hundreds
of megabytes builds hundreds of megabytes of objects before anyone can look at it.

Past either bound the text is refused with :class:`PeerJSONLimit`, a
``json.JSONDecodeError``: each caller's own handling of bad JSON (a fault of the agent,
a failed job, an invalid judgement) takes it, with a message that says which bound.
Both bounds are far beyond what any protocol here needs: the deepest real message, a
realtime ``session.updated`` event, is five levels deep.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64
"""Levels of nested arrays and objects a message may have (``[]`` is one level)."""
MAX_CHARS = 16 * 1024 * 1024
"""Characters a message may have: 16 Mi, about twelve minutes of 16 kHz PCM16 audio in
base64, or the word timestamps of a day of speech."""

# A string (its closing quote optional, so that an unterminated one is consumed to the
# end in one linear match instead of being retried at every later quote) or a bracket.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')


class PeerJSONLimit(json.JSONDecodeError):
    """The text is past a bound (a JSONDecodeError, so code that handles bad JSON handles
    this too). ``msg`` reads after "JSON", and ``reason`` adds where when that helps:
    ``nested deeper than 64 levels at char 64``,
    ``longer than 16777216 characters (16777300)``."""

    @property
    def reason(self) -> str:
        return self.msg


class TooDeep(PeerJSONLimit):
    """Nested deeper than the bound; ``pos`` is the bracket that opens one level too many."""

    @property
    def reason(self) -> str:
        return f"{self.msg} at char {self.pos}"


class TooLong(PeerJSONLimit):
    """Longer than the bound; ``pos`` is the bound."""


def loads(text: str, *, max_depth: int = MAX_DEPTH,
          max_chars: int | None = MAX_CHARS) -> Any:
    """``json.loads(text)`` for a text from a network peer, refusing one nested deeper
    than ``max_depth`` (:class:`TooDeep`) or longer than ``max_chars``
    (:class:`TooLong`). A file a system under test wrote is bounded in depth only
    (``max_chars=None``): its length is the size of a transcript, not of a message.

    >>> loads('{"type": "error", "error": {"message": "[no]"}}')["error"]["message"]
    '[no]'
    >>> def refusal(text: str, **limits: int) -> tuple[str, int]:
    ...     try:
    ...         loads(text, **limits)
    ...     except PeerJSONLimit as exc:
    ...         return exc.reason, exc.pos
    ...     raise AssertionError("accepted")
    >>> refusal("[" * 65 + "]" * 65)
    ('nested deeper than 64 levels at char 64', 64)
    >>> refusal('"' + "x" * 20 + '"', max_chars=10)
    ('longer than 10 characters (22)', 10)
    """
    if max_chars is not None and len(text) > max_chars:
        raise TooLong(f"longer than {max_chars} characters ({len(text)})", text, max_chars)
    too_deep = _first_too_deep(text, max_depth)
    if too_deep is not None:
        raise TooDeep(f"nested deeper than {max_depth} levels", text, too_deep)
    return json.loads(text)


def _first_too_deep(text: str, max_depth: int) -> int | None:
    """Where the first bracket past ``max_depth`` levels opens, or None.

    Brackets inside strings do not count. Up to the first error in the text this is the
    nesting the parser will meet; after an error the parser stops, so counting on there
    can only refuse a text that is bad anyway. A text with no more brackets than
    ``max_depth`` (almost every message, audio deltas included) is not scanned at all.
    """
    if text.count("[") + text.count("{") <= max_depth:
        return None
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        char = text[match.start()]
        if char in "[{":
            depth += 1
            if depth > max_depth:
                return match.start()
        elif char in "]}":
            depth -= 1
    return None
