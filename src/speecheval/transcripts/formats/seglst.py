"""SegLST: meeteval's JSON list of segments.

A JSON array of objects with ``session_id``, ``speaker``, ``start_time``, ``end_time`` and
``words``; times may be numbers or numeric strings, extra keys are allowed and ignored
(they are not scored). ``speaker`` and the times may be absent for plain transcripts.

>>> doc = '[{"session_id": "r", "speaker": "A", "start_time": "0.5", "end_time": 2, "words": "hi"}]'
>>> seg = SegLST.parse(doc).segments[0]
>>> (seg.session_id, seg.speaker, seg.start, seg.end, seg.words)
('r', 'A', 0.5, 2.0, 'hi')
>>> print(SegLST([seg]).dumps(), end="")
[
  {
    "end_time": 2.0,
    "session_id": "r",
    "speaker": "A",
    "start_time": 0.5,
    "words": "hi"
  }
]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...core import peer_json
from ...core.canonical_json import dumps
from ...core.decimal_seconds import parse_seconds
from ...core.errors import InputError
from ...core.timebase import round_us
from ._io import span
from .document import SessionTaggedDocument
from .segment import Segment


def _time(entry: dict[str, Any], key: str, index: int, where: str | None) -> float | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InputError(f"segment {index}: {key} must be a number, got {value!r}", path=where)
    try:
        return parse_seconds(str(value))
    except ValueError as exc:
        raise InputError(f"segment {index}: {key}: {exc}", path=where) from None


class SegLST(SessionTaggedDocument):
    """Segments of a SegLST document, in document order."""

    format_name = "SegLST"
    suffixes = (".json",)

    @classmethod
    def parse(cls, text: str, path: str | Path | None = None) -> SegLST:
        """Parse SegLST JSON; errors name the path and the segment index (from 0).

        >>> SegLST.parse('[{"session_id": "r"}]', path="h.json")
        Traceback (most recent call last):
        ...
        speecheval.core.errors.InputError: h.json: segment 0: missing key 'words'
        """
        where = None if path is None else str(path)
        try:  # bounded in depth: a system under test writes these files too
            data = peer_json.loads(text, max_chars=None)
        except peer_json.PeerJSONLimit as exc:
            raise InputError(f"not valid JSON: {exc.reason}", path=where) from None
        except json.JSONDecodeError as exc:
            raise InputError(f"line {exc.lineno}: not valid JSON: {exc.msg}", path=where) from None
        if not isinstance(data, list):
            raise InputError("SegLST must be a JSON array of segment objects", path=where)
        return cls.from_rows(data, where)

    @classmethod
    def from_rows(cls, data: list[Any], where: str | None = None) -> SegLST:
        """Segments from SegLST objects already in memory (``json.load``'s list, or dicts a
        caller built); errors name ``where`` and the segment index (from 0), as
        :meth:`parse` does.

        >>> SegLST.from_rows([{"session_id": "r", "words": 3}], "reference")
        Traceback (most recent call last):
        ...
        speecheval.core.errors.InputError: reference: segment 0: words must be a string
        """
        segments = []
        for index, entry in enumerate(data):
            if not isinstance(entry, dict):
                raise InputError(f"segment {index}: not a JSON object", path=where)
            for key in ("session_id", "words"):
                if key not in entry:
                    raise InputError(f"segment {index}: missing key {key!r}", path=where)
                if not isinstance(entry[key], str):
                    raise InputError(f"segment {index}: {key} must be a string", path=where)
            speaker = entry.get("speaker")
            if speaker is not None and not isinstance(speaker, str | int):
                raise InputError(f"segment {index}: speaker must be a string", path=where)
            start = _time(entry, "start_time", index, where)
            end = _time(entry, "end_time", index, where)
            if start is not None and end is not None:
                span(start, end, f"segment {index}", where)
            segments.append(Segment(session_id=entry["session_id"],
                                    speaker=None if speaker is None else str(speaker),
                                    start=start, end=end, words=entry["words"], line=index))
        return cls(segments)

    def dumps(self) -> str:
        """Canonical JSON (sorted keys, microsecond times); absent fields are left out."""
        return dumps([seglst_row(seg) for seg in self.segments])


def seglst_row(seg: Segment) -> dict[str, Any]:
    """One segment as a SegLST object (microsecond times; absent fields left out)."""
    row: dict[str, Any] = {"session_id": seg.session_id, "words": seg.words}
    if seg.speaker is not None:
        row["speaker"] = seg.speaker
    if seg.start is not None:
        row["start_time"] = round_us(seg.start)
    if seg.end is not None:
        row["end_time"] = round_us(seg.end)
    return row
