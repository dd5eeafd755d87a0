"""STM (NIST segment time mark): one reference or hypothesis segment per line.

``<session> <channel> <speaker> <start> <end> [<label>] <words...>``; lines starting with
``;;`` are comments, the optional ``<label>`` field (``<O,F0,male>``) is skipped, and the
words may be empty. Times are decimal seconds.

>>> segs = STM.parse("rec 1 A 0 1.5 hello there\\n;; note\\nrec 1 B 1.5 2 <O> hi\\n").segments
>>> [(s.speaker, s.start, s.end, s.words) for s in segs]
[('A', 0.0, 1.5, 'hello there'), ('B', 1.5, 2.0, 'hi')]
>>> print(STM(segs).dumps(), end="")
rec 1 A 0.000 1.500 hello there
rec 1 B 1.500 2.000 hi
"""

from __future__ import annotations

from pathlib import Path

from ...core.decimal_seconds import format_seconds
from ...core.errors import InputError
from ._io import data_lines, seconds, span
from .document import SessionTaggedDocument
from .segment import Segment

_MIN_FIELDS = 5


class STM(SessionTaggedDocument):
    """Segments of an STM file, in file order."""

    format_name = "STM"
    suffixes = (".stm",)
    utf16 = True  # as Windows tools save "Unicode" text: UTF-16 with a byte-order mark

    @classmethod
    def parse(cls, text: str, path: str | Path | None = None) -> STM:
        """Parse STM text; a malformed line raises InputError naming the path and line.

        >>> STM.parse("rec 1 A zero 1 hi", path="x.stm")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        speecheval.core.errors.InputError: x.stm: line 1: start time: not a number ...
        """
        where = None if path is None else str(path)
        segments = []
        for number, stripped in data_lines(text, (";;",)):
            fields = stripped.split(maxsplit=5)
            if len(fields) < _MIN_FIELDS:
                raise InputError(f"line {number}: STM line needs at least {_MIN_FIELDS} fields "
                                 f"(session channel speaker start end), found {len(fields)}",
                                 path=where)
            start = seconds(fields[3], "start time", f"line {number}", where)
            end = seconds(fields[4], "end time", f"line {number}", where)
            span(start, end, f"line {number}", where)
            words = fields[5] if len(fields) > _MIN_FIELDS else ""
            if words.startswith("<"):
                close = words.find(">")
                if close < 0:
                    raise InputError(f"line {number}: label field '<' is never closed",
                                     path=where)
                words = words[close + 1:].strip()
            segments.append(Segment(session_id=fields[0], channel=fields[1], speaker=fields[2],
                                    start=start, end=end, words=words, line=number))
        return cls(segments)

    def dumps(self) -> str:
        """STM text, one segment per line; every segment needs a speaker and times."""
        lines = []
        for seg in self.segments:
            if seg.speaker is None or seg.start is None or seg.end is None:
                raise ValueError(f"STM needs a speaker and times for every segment: {seg!r}")
            fields = [seg.session_id, seg.channel, seg.speaker, format_seconds(seg.start),
                      format_seconds(seg.end)]
            lines.append(" ".join(fields + ([seg.words] if seg.words else [])) + "\n")
        return "".join(lines)
