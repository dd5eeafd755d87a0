"""UEM (un-partitioned evaluation map): the scoring regions of each file.

Every diarization score here is computed over an explicit scoring region, so the
denominator is always visible. A UEM line names a file, a channel and one region::

    <file> <chnl> <tbeg> <tend>

A file may have several lines (several regions); one UEM may hold many files.
Regions of one file may touch (``0 10`` and ``10 20``) but not overlap: md-eval stops on
overlapping regions and dscore merges them, so such a file means different things to
different tools and is refused, naming both lines.

>>> uem = UEM.parse("rec 1 0 15\\nrec 1 25 30.4\\n; comment\\nother 1 4.5 13.24\\n")
>>> uem.regions("rec")
((0.0, 15.0), (25.0, 30.4))
>>> print(uem.dumps(), end="")
rec 1 0.000 15.000
rec 1 25.000 30.400
other 1 4.500 13.240
"""

from __future__ import annotations

import itertools
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from ...core.decimal_seconds import format_seconds, parse_seconds
from ...core.errors import InputError
from ...core.timeline import Span, TimedRecord
from ._io import data_lines, read_text, write_new

_FIELDS = 4


@dataclass(frozen=True)
class UemSegment(TimedRecord):
    """One scoring region of ``file_id``: a :class:`~speecheval.core.timeline.Span` in
    integer microseconds; ``line`` is for messages only.

    >>> UemSegment.from_seconds("rec", 0.5, 15.0).span
    Span(start_us=500000, end_us=15000000, label=None, open_at_end=False)
    """

    file_id: str
    span: Span
    channel: str = "1"
    line: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.span.start_us < 0:
            raise ValueError(f"UEM region must satisfy 0 <= start <= end: {self!r}")

    @classmethod
    def from_seconds(cls, file_id: str, start: float, end: float, channel: str = "1",
                     line: int | None = None) -> UemSegment:
        """A region from its edges in seconds, each rounded to the microsecond."""
        if start < 0 or end < start:
            raise ValueError(f"UEM region must satisfy 0 <= start <= end: {start}, {end}")
        return cls(file_id, Span.from_seconds(start, end), channel, line)

    def to_line(self) -> str:
        """The region as one UEM line without a newline."""
        return " ".join([self.file_id, self.channel, format_seconds(self.start),
                         format_seconds(self.end)])


@dataclass(frozen=True)
class UEM:
    """Scoring regions, in file order."""

    segments: tuple[UemSegment, ...]
    path: str | None = None

    def __post_init__(self) -> None:
        by_file: dict[str, list[UemSegment]] = {}
        for segment in self.segments:
            by_file.setdefault(segment.file_id, []).append(segment)
        for file_segments in by_file.values():
            ordered = sorted(file_segments, key=lambda seg: (seg.span.start_us, seg.span.end_us))
            for before, after in itertools.pairwise(ordered):
                if after.span.start_us < before.span.end_us:
                    raise InputError(_overlap_message(before, after), path=self.path)

    @classmethod
    def parse(cls, text: str, path: str | Path | None = None) -> UEM:
        """Parse UEM text; a malformed line raises :class:`InputError` naming path and line.

        >>> UEM.parse("rec 1 5 4", path="a.uem")
        Traceback (most recent call last):
        ...
        speecheval.core.errors.InputError: a.uem: line 1: region end 4 is before its start 5
        """
        where = None if path is None else str(path)
        segments: list[UemSegment] = []
        for number, stripped in data_lines(text, ("#", ";")):
            fields = stripped.split()
            if len(fields) != _FIELDS:
                raise InputError(f"line {number}: UEM line needs {_FIELDS} fields "
                                 f"(file channel start end), found {len(fields)}", path=where)
            try:
                start = parse_seconds(fields[2])
                end = parse_seconds(fields[3])
            except ValueError as exc:
                raise InputError(f"line {number}: {exc}", path=where) from None
            if start < 0:
                raise InputError(f"line {number}: negative region start {fields[2]}",
                                 path=where)
            if end < start:
                raise InputError(f"line {number}: region end {fields[3]} is before its start "
                                 f"{fields[2]}", path=where)
            segments.append(UemSegment.from_seconds(fields[0], start, end, fields[1], number))
        return cls(tuple(segments), path=where)

    @classmethod
    def load(cls, path: str | Path) -> UEM:
        """Read and parse a UEM file (UTF-8, a BOM is dropped)."""
        return cls.parse(read_text(path, "UEM"), path=path)

    @classmethod
    def from_regions(cls, regions: dict[str, tuple[tuple[float, float], ...]]) -> UEM:
        """Build a UEM from ``{file_id: ((start, end), ...)}`` (files in sorted order).

        >>> UEM.from_regions({"b": ((0.0, 2.0),), "a": ((1.0, 3.0),)}).file_ids()
        ('a', 'b')
        """
        return cls(tuple(UemSegment.from_seconds(key, start, end)
                         for key in sorted(regions) for start, end in regions[key]))

    def without_files(self, file_ids: Collection[str]) -> UEM:
        """The same regions without those of ``file_ids`` (``--partial`` leaves them out).

        >>> UEM.parse("a 1 0 1\\nb 1 0 2").without_files({"a"}).file_ids()
        ('b',)
        """
        if not file_ids:
            return self
        return UEM(tuple(s for s in self.segments if s.file_id not in file_ids), self.path)

    def dumps(self) -> str:
        """UEM text, one region per line, newline-terminated."""
        return "".join(segment.to_line() + "\n" for segment in self.segments)

    def dump(self, path: str | Path) -> None:
        """Write to a new file (never overwrites), atomically."""
        write_new(path, self.dumps())

    def file_ids(self) -> tuple[str, ...]:
        """File ids in sorted order."""
        return tuple(sorted({segment.file_id for segment in self.segments}))

    def regions(self, file_id: str) -> tuple[tuple[float, float], ...]:
        """Sorted ``(start, end)`` regions of one file (they never overlap; touching regions
        stay apart); empty if the file is absent.

        >>> UEM.parse("f 1 5 6\\nf 1 0 1\\nf 1 1 5").regions("f")
        ((0.0, 1.0), (1.0, 5.0), (5.0, 6.0))
        >>> UEM.parse("f 1 0 10\\nf 1 5 20", path="a.uem")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        speecheval.core.errors.InputError: a.uem: line 2: region 5-20 of file 'f' overlaps ...
        """
        return tuple(sorted((s.start, s.end) for s in self.segments if s.file_id == file_id))


def _overlap_message(before: UemSegment, after: UemSegment) -> str:
    """Name both overlapping regions and their lines (``line 2: region 5-20 ...``)."""
    later, earlier = (after, before) if (after.line or 0) >= (before.line or 0) else (before,
                                                                                   after)
    where = "" if later.line is None else f"line {later.line}: "
    other_line = "" if earlier.line is None else f" on line {earlier.line}"
    return (f"{where}region {later.start:g}-{later.end:g} of file {later.file_id!r} overlaps "
            f"region {earlier.start:g}-{earlier.end:g}{other_line} (regions may touch, not "
            "overlap)")
