"""Praat TextGrid, for human review of transcripts in Praat (one interval tier per speaker).

Writing produces the long text format: one ``IntervalTier`` per speaker (tier name = the
speaker, speakers sorted), gaps filled with empty intervals as Praat requires; a speaker's
overlapping segments cannot share a tier and are refused. Reading accepts the long and the
short text format (both are the same token stream once labels like ``xmin =`` and
``item [1]:`` are skipped); empty intervals are dropped, ``TextTier`` point tiers skipped.

>>> segs = [Segment("ep", "S02", 1.0, 2.0, "hi"), Segment("ep", "S01", 0.5, 1.5, "yo")]
>>> grid = TextGrid(segs).dumps()
>>> [(s.speaker, s.start, s.end, s.words) for s in TextGrid.parse(grid, "ep").segments]
[('S01', 0.5, 1.5, 'yo'), ('S02', 1.0, 2.0, 'hi')]
"""

from __future__ import annotations

import re
from pathlib import Path

from ...core.decimal_seconds import parse_decimal
from ...core.errors import InputError
from ...core.timebase import from_us, to_us
from ._io import seconds, span
from .document import SessionFileDocument
from .segment import Segment

_TOKEN = re.compile(r'"((?:[^"]|"")*)"|(<exists>|<absent>)|\[\d*\]:?|[A-Za-z_]\w*|[?:=]|'
                    r"([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(\S)", re.ASCII)


def _fmt(seconds: float) -> str:
    return repr(from_us(to_us(seconds)))


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


class _Tokens:
    """Strings, numbers and flags of a TextGrid file, with the line of each for errors."""

    def __init__(self, text: str, where: str | None) -> None:
        self.items: list[tuple[str, str, int]] = []
        self.where = where
        self.pos = 0
        for match in _TOKEN.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            string, flag, number, other = match.groups()
            if string is not None:
                self.items.append(("str", string.replace('""', '"'), line))
            elif flag is not None:
                self.items.append(("flag", flag, line))
            elif number is not None:
                self.items.append(("num", number, line))
            elif other is not None:
                raise InputError(f"line {line}: unexpected {other!r} in TextGrid", path=where)

    def _next(self, kind: str, what: str) -> str:
        if self.pos >= len(self.items):
            raise InputError(f"TextGrid ends early: expected {what}", path=self.where)
        got_kind, value, line = self.items[self.pos]
        if got_kind != kind:
            raise InputError(f"line {line}: expected {what}, found {value!r}", path=self.where)
        self.pos += 1
        return value

    def string(self, what: str) -> str:
        return self._next("str", what)

    def number(self, what: str) -> float:
        text = self._next("num", what)
        try:
            return parse_decimal(text)
        except ValueError as exc:
            line = self.items[self.pos - 1][2]
            raise InputError(f"line {line}: {what}: {exc}", path=self.where) from None

    def seconds(self, what: str) -> float:
        """A time: a plain decimal of at most
        :data:`~speecheval.core.decimal_seconds.MAX_SECONDS`, as in every format."""
        text = self._next("num", what)
        line = self.items[self.pos - 1][2]
        return seconds(text, what, f"line {line}", self.where)

    def count(self, what: str) -> int:
        value = self.number(what)
        if value != int(value) or value < 0:
            line = self.items[self.pos - 1][2]
            raise InputError(f"line {line}: {what} must be a non-negative integer, found "
                             f"{value}", path=self.where)
        return int(value)

    def flag(self) -> None:
        if self.pos < len(self.items) and self.items[self.pos][0] == "flag":
            self.pos += 1

    def line(self) -> int:
        return self.items[min(self.pos, len(self.items) - 1)][2] if self.items else 1


class TextGrid(SessionFileDocument):
    """Speaker-attributed segments as a TextGrid."""

    format_name = "TextGrid"
    suffixes = (".textgrid",)
    header = 'File type = "ooTextFile"'
    utf16 = True  # Praat saves a TextGrid with non-ASCII labels as UTF-16 with a BOM

    @classmethod
    def parse(cls, text: str, session_id: str, path: str | Path | None = None) -> TextGrid:
        """Parse a long- or short-format TextGrid; errors name the path and line.

        >>> doc = 'File type = "ooTextFile"\\nObject class = "Table"\\n'
        >>> TextGrid.parse(doc, "s", "t.TextGrid")
        Traceback (most recent call last):
        ...
        speecheval.core.errors.InputError: t.TextGrid: line 2: object class is 'Table', not ...
        """
        where = None if path is None else str(path)
        tokens = _Tokens(text, where)
        tokens.string("file type")
        line = tokens.line()
        if tokens.string("object class") != "TextGrid":
            raise InputError(f"line {line}: object class is {tokens.items[1][1]!r}, "
                             "not 'TextGrid'", path=where)
        tokens.number("xmin")
        tokens.number("xmax")
        tokens.flag()
        segments = []
        for _ in range(tokens.count("number of tiers")):
            tier_class = tokens.string("tier class")
            name = tokens.string("tier name")
            tokens.number("tier xmin")
            tokens.number("tier xmax")
            size = tokens.count("number of intervals")
            for _ in range(size):
                line = tokens.line()
                if tier_class == "TextTier":
                    tokens.number("point time")
                    tokens.string("point mark")
                    continue
                start = tokens.seconds("interval xmin")
                end = tokens.seconds("interval xmax")
                label = tokens.string("interval text")
                span(start, end, f"line {line}", where)
                if label.strip():
                    segments.append(Segment(session_id=session_id, speaker=name, start=start,
                                            end=end, words=label.strip(), line=line))
        return cls(segments)

    def dumps(self) -> str:
        """Long-format TextGrid text, one interval tier per speaker."""
        tiers: dict[str, list[Segment]] = {}
        for seg in self.segments:
            if seg.speaker is None or seg.start is None or seg.end is None:
                raise ValueError(f"TextGrid needs a speaker and times for every segment: {seg!r}")
            tiers.setdefault(seg.speaker, []).append(seg)
        xmax = max((to_us(s.end) for s in self.segments if s.end is not None), default=0)
        out = ['File type = "ooTextFile"', 'Object class = "TextGrid"', "",
               "xmin = 0.0", f"xmax = {_fmt(from_us(xmax))}", "tiers? <exists>",
               f"size = {len(tiers)}", "item []:"]
        for number, speaker in enumerate(sorted(tiers), start=1):
            intervals = self._intervals(speaker, tiers[speaker], xmax)
            out += [f"    item [{number}]:", '        class = "IntervalTier"',
                    f"        name = {_quote(speaker)}", "        xmin = 0.0",
                    f"        xmax = {_fmt(from_us(xmax))}",
                    f"        intervals: size = {len(intervals)}"]
            for index, (lo, hi, label) in enumerate(intervals, start=1):
                out += [f"        intervals [{index}]:", f"            xmin = {_fmt(from_us(lo))}",
                        f"            xmax = {_fmt(from_us(hi))}",
                        f"            text = {_quote(label)}"]
        return "\n".join(out) + "\n"

    @staticmethod
    def _intervals(speaker: str, segments: list[Segment], xmax: int) -> list[tuple[int, int, str]]:
        """Contiguous intervals in microseconds covering ``[0, xmax]``."""
        intervals: list[tuple[int, int, str]] = []
        cursor = 0
        for seg in sorted(segments, key=lambda s: (s.start, s.end)):
            assert seg.start is not None and seg.end is not None
            lo, hi = to_us(seg.start), to_us(seg.end)
            if lo < cursor:
                raise ValueError(f"speaker {speaker!r} has overlapping segments at "
                                 f"{seg.start} s; a TextGrid tier cannot hold them")
            if lo > cursor:
                intervals.append((cursor, lo, ""))
            intervals.append((lo, hi, seg.words))
            cursor = hi
        if cursor < xmax or not intervals:
            intervals.append((cursor, xmax, ""))
        return intervals
