"""CTM (NIST conversation time mark): one hypothesis word per line.

``<session> <channel> <start> <duration> <word> [<confidence>]``; ``;;`` starts a comment.
CTM carries no speaker, so segments have ``speaker=None`` (a per-speaker CTM set is
several files). Each word becomes a segment from ``start`` to ``start + duration``.

>>> segs = CTM.parse("rec 1 0.5 0.25 hello 0.9\\nrec 1 0.8 0.2 world\\n").segments
>>> [(s.start, s.end, s.words) for s in segs]
[(0.5, 0.75, 'hello'), (0.8, 1.0, 'world')]
>>> print(CTM(segs).dumps(), end="")
rec 1 0.500 0.250 hello
rec 1 0.800 0.200 world
"""

from __future__ import annotations

from pathlib import Path

from ...core.decimal_seconds import format_seconds, parse_decimal
from ...core.errors import InputError
from ...core.timebase import from_us, to_us
from ._io import data_lines, seconds, span
from .document import SessionTaggedDocument
from .segment import Segment

_FIELDS = (5, 6)


class CTM(SessionTaggedDocument):
    """Word segments of a CTM file, in file order."""

    format_name = "CTM"
    suffixes = (".ctm",)
    word_timed = True

    @classmethod
    def parse(cls, text: str, path: str | Path | None = None) -> CTM:
        """Parse CTM text; errors name the path and line.

        >>> CTM.parse("rec 1 0 -1 hi", path="h.ctm")
        Traceback (most recent call last):
        ...
        speecheval.core.errors.InputError: h.ctm: line 1: end time -1.0 is before start time 0.0
        """
        where = None if path is None else str(path)
        segments = []
        for number, stripped in data_lines(text, (";;",)):
            fields = stripped.split()
            if len(fields) not in _FIELDS:
                raise InputError(f"line {number}: CTM line needs 5 or 6 fields (session "
                                 f"channel start duration word [confidence]), found "
                                 f"{len(fields)}", path=where)
            label = f"line {number}"
            start = seconds(fields[2], "start time", label, where)
            duration = seconds(fields[3], "duration", label, where)
            end = from_us(to_us(start) + to_us(duration))
            span(start, end, label, where)
            if len(fields) == _FIELDS[1]:
                try:
                    parse_decimal(fields[5])
                except ValueError as exc:
                    raise InputError(f"{label}: confidence: {exc}", path=where) from None
            segments.append(Segment(session_id=fields[0], channel=fields[1], speaker=None,
                                    start=start, end=end, words=fields[4], line=number))
        return cls(segments)

    def dumps(self) -> str:
        """CTM text, one word per line (a multi-word segment is refused: no word times)."""
        lines = []
        for seg in self.segments:
            if seg.start is None or seg.end is None or len(seg.words.split()) != 1:
                raise ValueError(f"CTM needs one word with times per segment: {seg!r}")
            duration = from_us(to_us(seg.end) - to_us(seg.start))
            lines.append(f"{seg.session_id} {seg.channel} {format_seconds(seg.start)} "
                         f"{format_seconds(duration)} {seg.words}\n")
        return "".join(lines)
