"""RTTM (NIST Rich Transcription Time Marked) speaker turns: parse, load, dump.

Diarization references and hypotheses arrive as RTTM ``SPEAKER`` records, ten
space-separated fields per line::

    SPEAKER <file> <chnl> <tbeg> <tdur> <ortho> <stype> <name> <conf> <slat>

Only ``SPEAKER`` records carry speaker time, so only they are kept; the other record
types of the RTTM specification (``SPKR-INFO``, ``LEXEME``, ``NOSCORE`` ...) are
recognised, counted in :attr:`RTTM.ignored_records` and not scored, and an unknown type is
an error, as in md-eval. One RTTM may hold many files (recordings); the channel field is
kept for round trips but not used for scoring, because every tool in use writes ``1``.

A speaker name of ``<NA>`` means the system gave no speaker attribution; scoring treats a
hypothesis whose turns all lack a speaker as ``unsupported`` (never as an error rate).

>>> rttm = RTTM.parse("SPEAKER rec 1 0.5 1.25 <NA> <NA> spk1 <NA> <NA>\\n"
...                   "SPKR-INFO rec 1 <NA> <NA> <NA> unknown spk1 <NA> <NA>\\n")
>>> rttm.turns[0].end, rttm.ignored_records
(1.75, 1)
>>> print(rttm.dumps(), end="")
SPEAKER rec 1 0.500 1.250 <NA> <NA> spk1 <NA> <NA>
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core.decimal_seconds import format_seconds, parse_seconds
from ...core.errors import InputError
from ...core.log import get_logger
from ...core.timebase import to_us
from ...core.timeline import Span, Spans, TimedRecord
from ._io import read_text, split_lines, write_new
from .rttm_fields import (
    CHANNEL,
    CONFIDENCE,
    DEFAULTS,
    DURATION,
    FILE,
    MAX_FIELDS,
    MIN_FIELDS,
    NA,
    NAME,
    ONSET,
    ORTHO,
    PLAIN,
    SLAT,
    SPEAKER,
    SUBTYPE,
    TYPE,
)
from .rttm_plain import plain_columns

_log = get_logger(__name__)

BOM = "\ufeff".encode()
SPEAKER_INFO = "SPKR-INFO"
# Record types of the RTTM specification (NIST RT-09 plan, appendix A), as md-eval knows them.
OTHER_RECORD_TYPES = frozenset({
    "SEGMENT", "NOSCORE", "NO_RT_METADATA", "LEXEME", "NON-LEX", "NON-SPEECH", "FILLER",
    "EDIT", "IP", "CB", "A/P", "SU", "SPKR-INFO",
})


@dataclass(frozen=True)
class RttmTurn(TimedRecord):
    """One ``SPEAKER`` record: in ``file_id``, ``span.label`` (the speaker) talks over ``span``.

    The time is a :class:`~speecheval.core.timeline.Span` in integer microseconds: RTTM's
    onset and duration are rounded to the microsecond as ``[to_us(tbeg), to_us(tbeg +
    tdur))``, so float noise in either field cannot move a boundary. The other fields are
    RTTM's own, kept for round trips. ``line`` is the 1-based source line, kept for error
    messages only.

    >>> turn = RttmTurn.from_seconds("rec", 0.5, 1.25, "spk1")
    >>> turn.span, turn.speaker, turn.end
    (Span(start_us=500000, end_us=1750000, label='spk1', open_at_end=False), 'spk1', 1.75)
    """

    file_id: str
    span: Span
    channel: str = PLAIN[CHANNEL]
    ortho: str = PLAIN[ORTHO]
    subtype: str = PLAIN[SUBTYPE]
    confidence: str = PLAIN[CONFIDENCE]
    slat: str = PLAIN[SLAT]
    line: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.span.start_us < 0:
            raise ValueError(f"negative start in {self!r}")
        if self.span.label is None:
            raise ValueError(f"an RTTM turn needs a speaker (or {NA}): {self!r}")

    @classmethod
    def from_seconds(cls, file_id: str, start: float, duration: float, speaker: str,
                     **fields: Any) -> RttmTurn:
        """A turn from RTTM's onset and duration in seconds."""
        if start < 0 or duration < 0:
            raise ValueError(f"negative start or duration: {start}, {duration}")
        return cls(file_id, Span(to_us(start), to_us(start + duration), speaker), **fields)

    @property
    def speaker(self) -> str:
        """The speaker name (``<NA>``: no attribution)."""
        assert self.span.label is not None
        return self.span.label

    @property
    def has_speaker(self) -> bool:
        """False when the speaker field is ``<NA>`` (no speaker attribution)."""
        return self.speaker != NA

    def to_line(self) -> str:
        """The record as one RTTM line without a newline."""
        return " ".join([
            SPEAKER, self.file_id, self.channel, format_seconds(self.start),
            format_seconds(self.duration), self.ortho, self.subtype, self.speaker,
            self.confidence, self.slat,
        ])


@dataclass(frozen=True, eq=False)
class RttmColumns:
    """The ``SPEAKER`` turns of an RTTM as columns: what scoring needs, one array each.

    A million turns as :class:`RttmTurn` objects cost about 640 bytes each; as columns
    they cost 24 (32 with line numbers). ``files[i]`` and ``speakers[i]`` index ``file_names`` and
    ``speaker_names`` (in order of first appearance), ``starts``/``ends`` are the
    turn's µs (as :class:`RttmTurn` rounds them) and ``lines`` the 1-based source line
    (0 when unknown); ``lines`` is ``None`` when turn ``i`` is on line ``i + 1`` (a plain
    file: one turn a line), which saves an array as long as the file for error messages.
    """

    file_names: tuple[str, ...]
    files: NDArray[np.int32]
    speaker_names: tuple[str, ...]
    speakers: NDArray[np.int32]
    starts: NDArray[np.int64]
    ends: NDArray[np.int64]
    lines: NDArray[np.integer] | None = None

    def __len__(self) -> int:
        return int(self.starts.size)

    @classmethod
    def from_turns(cls, turns: Sequence[RttmTurn]) -> RttmColumns:
        """Columns of turn objects, in their order."""
        file_index: dict[str, int] = {}
        speaker_index: dict[str, int] = {}
        n = len(turns)
        files = np.fromiter((file_index.setdefault(t.file_id, len(file_index)) for t in turns),
                            dtype=np.int32, count=n)
        speakers = np.fromiter((speaker_index.setdefault(t.speaker, len(speaker_index))
                                for t in turns), dtype=np.int32, count=n)
        return cls(tuple(file_index), files, tuple(speaker_index), speakers,
                   np.fromiter((t.span.start_us for t in turns), dtype=np.int64, count=n),
                   np.fromiter((t.span.end_us for t in turns), dtype=np.int64, count=n),
                   np.fromiter((t.line or 0 for t in turns), dtype=np.int64, count=n))

    def file_ids(self) -> tuple[str, ...]:
        """File ids with turns, in sorted order."""
        present = np.flatnonzero(np.bincount(self.files, minlength=len(self.file_names)))
        return tuple(sorted(self.file_names[i] for i in present.tolist()))

    def line(self, index: int) -> int | None:
        """Source line of turn ``index`` (None when unknown)."""
        return index + 1 if self.lines is None else int(self.lines[index]) or None

    def spans_by_file(self) -> dict[str, Spans]:
        """Each file's turns as spans labelled by speaker, in input order (files sorted).

        Labels are the file's own speakers, sorted, as :meth:`Spans.from_spans` gives.
        """
        groups: list[tuple[str, slice | NDArray[np.intp]]]
        if len(self.file_names) == 1:
            # one file: all rows, as views of the columns (a million turns: no sort, and
            # no 16 MB copy a side)
            groups = [(self.file_names[0], slice(None))] if len(self) else []
        else:
            order = np.argsort(self.files, kind="stable")
            cuts = np.flatnonzero(np.diff(self.files[order])) + 1
            groups = [(self.file_names[int(self.files[rows[0]])], rows)
                      for rows in (np.split(order, cuts) if order.size else [])]
        result: dict[str, Spans] = {}
        for file_id, take in groups:
            speakers = self.speakers[take]
            present = np.flatnonzero(np.bincount(speakers, minlength=len(self.speaker_names)))
            names = [self.speaker_names[i] for i in present.tolist()]
            rank = np.argsort(np.array(names, dtype=str), kind="stable")
            code = np.zeros(len(self.speaker_names), dtype=np.int32)
            code[present[rank]] = np.arange(rank.size, dtype=np.int32)
            result[file_id] = Spans._trusted(self.starts[take], self.ends[take],
                                             code[speakers],
                                             tuple(names[i] for i in rank.tolist()))
        return dict(sorted(result.items()))


class RTTM:
    """The ``SPEAKER`` turns of one RTTM file, in file order.

    ``ignored_records`` counts the other records; ``other_records`` gives ``(line, type)``
    of those that are not ``SPKR-INFO`` (md-eval turns ``NOSCORE`` and ``NON-LEX`` into
    no-score zones and dscore reads any of them as a turn, so the compatibility modes
    refuse them).

    A parsed RTTM holds its turns as :class:`RttmColumns` (``columns``), which is what
    scoring reads; the :class:`RttmTurn` objects (``turns``) are made on first use.
    """

    __slots__ = ("_turns", "_columns", "_extras", "path", "ignored_records", "other_records")

    def __init__(self, turns: Sequence[RttmTurn] = (), path: str | None = None,
                 ignored_records: int = 0, other_records: tuple[tuple[int, str], ...] = ()
                 ) -> None:
        self._turns: tuple[RttmTurn, ...] | None = tuple(turns)
        self._columns: RttmColumns | None = None
        self._extras: dict[int, tuple[str, ...]] = {}
        self.path = path
        self.ignored_records = ignored_records
        self.other_records = other_records

    @classmethod
    def _from_columns(cls, columns: RttmColumns, extras: dict[int, tuple[str, ...]],
                      path: str | None, ignored_records: int,
                      other_records: tuple[tuple[int, str], ...]) -> RTTM:
        rttm = cls((), path, ignored_records, other_records)
        rttm._turns, rttm._columns, rttm._extras = None, columns, extras
        return rttm

    def renamed(self, file_id: str) -> RTTM:
        """The same file with every turn in file ``file_id`` (a sample's RTTM describes one
        recording, named after the sample), made from the columns: no turn objects.

        >>> RTTM.parse("SPEAKER a 1 0 1 <NA> <NA> x <NA> <NA>").renamed("s").turns[0].file_id
        's'
        """
        columns = replace(self.columns, file_names=(file_id,) if len(self.columns) else (),
                          files=np.zeros(len(self.columns), dtype=np.int32))
        return RTTM._from_columns(columns, self._extras, self.path, self.ignored_records,
                                  self.other_records)

    def without_files(self, file_ids: Collection[str]) -> RTTM:
        """The same file without the turns of ``file_ids`` (``--partial`` leaves them out),
        made from the columns: no turn objects; each kept turn keeps its source line.

        >>> rttm = RTTM.parse("SPEAKER a 1 0 1 <NA> <NA> x <NA> <NA>\\n"
        ...                   "SPEAKER b 1 0 1 <NA> <NA> y <NA> <NA>\\n")
        >>> kept = rttm.without_files({"a"})
        >>> kept.file_ids(), kept.turns[0].line
        (('b',), 2)
        """
        if not file_ids:
            return self
        c = self.columns
        dropped = np.array([name in file_ids for name in c.file_names], dtype=bool)
        rows = np.flatnonzero(~dropped[c.files]) if len(c) else np.zeros(0, dtype=np.intp)
        lines = rows + 1 if c.lines is None else c.lines[rows]
        columns = RttmColumns(c.file_names, c.files[rows], c.speaker_names, c.speakers[rows],
                              c.starts[rows], c.ends[rows], lines.astype(np.int64))
        extras = {new: self._extras[old] for new, old in enumerate(rows.tolist())
                  if old in self._extras}
        return RTTM._from_columns(columns, extras, self.path, self.ignored_records,
                                  self.other_records)

    def with_turns(self, turns: Iterable[RttmTurn]) -> RTTM:
        """The same file (path, other records) with other turns."""
        return RTTM(tuple(turns), self.path, self.ignored_records, self.other_records)

    @property
    def turns(self) -> tuple[RttmTurn, ...]:
        """The turns as objects (made from the columns on first use)."""
        if self._turns is None:
            self._turns = tuple(self._turn(i) for i in range(len(self.columns)))
        return self._turns

    @property
    def columns(self) -> RttmColumns:
        """The turns as columns (made from the objects on first use)."""
        if self._columns is None:
            self._columns = RttmColumns.from_turns(self.turns)
        return self._columns

    def _turn(self, index: int) -> RttmTurn:
        c = self.columns
        channel, ortho, subtype, confidence, slat = self._extras.get(index, DEFAULTS)
        return RttmTurn(c.file_names[c.files[index]],
                        Span(int(c.starts[index]), int(c.ends[index]),
                             c.speaker_names[c.speakers[index]]),
                        channel=channel, ortho=ortho, subtype=subtype, confidence=confidence,
                        slat=slat, line=c.line(index))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RTTM):
            return NotImplemented
        return (self.turns, self.path, self.ignored_records, self.other_records) == (
            other.turns, other.path, other.ignored_records, other.other_records)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"RTTM(turns={self.turns!r}, path={self.path!r}, "
                f"ignored_records={self.ignored_records!r}, "
                f"other_records={self.other_records!r})")

    @classmethod
    def parse(cls, text: str, path: str | Path | None = None) -> RTTM:
        """Parse RTTM text; a malformed line raises :class:`InputError` naming path and line.

        Blank lines and lines starting with ``#`` or ``;`` are comments.

        >>> RTTM.parse("SPEAKER rec 1 zero 1 <NA> <NA> a <NA> <NA>", path="x")
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        speecheval.core.errors.InputError: x: line 1: bad onset: not a number of seconds: 'zero' ...
        """
        where = None if path is None else str(path)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: not plain, the line reader decides
            data = b""
        return cls._plain(data, where) or _ColumnReader(where).read(text)

    @classmethod
    def load(cls, path: str | Path) -> RTTM:
        """Read and parse an RTTM file (UTF-8, a BOM is dropped)."""
        try:
            data = Path(path).read_bytes()
            _log.debug("read RTTM file %s (%d bytes)", path, len(data))
        except OSError:
            data = b""  # read_text names the problem
        return cls._plain(data.removeprefix(BOM), str(path)) or cls.parse(
            read_text(path, "RTTM"), path=path)

    @classmethod
    def _plain(cls, data: bytes, path: str | None) -> RTTM | None:
        """A plain RTTM read from its bytes (:mod:`.rttm_plain`), or None if not plain."""
        plain = plain_columns(data)
        if plain is None:
            return None
        return cls._from_columns(RttmColumns(*plain), {}, path, 0, ())

    def dumps(self) -> str:
        """RTTM text: one ``SPEAKER`` line per turn, newline-terminated."""
        return "".join(turn.to_line() + "\n" for turn in self.turns)

    def dump(self, path: str | Path) -> None:
        """Write to a new file (never overwrites), atomically."""
        write_new(path, self.dumps())

    def file_ids(self) -> tuple[str, ...]:
        """File ids in sorted order."""
        return self.columns.file_ids()

    def by_file(self) -> dict[str, tuple[RttmTurn, ...]]:
        """Turns grouped by file id (file order kept inside each group)."""
        groups: dict[str, list[RttmTurn]] = {}
        for turn in self.turns:
            groups.setdefault(turn.file_id, []).append(turn)
        return {key: tuple(value) for key, value in sorted(groups.items())}


_CHUNK_LINES = 16384


class _ColumnReader:
    """Parses RTTM text line by line into columns, a chunk of lines at a time (so the
    per-line objects of one chunk at most are alive at once); used for text that is not
    plain (:mod:`.rttm_plain`), with the checks and messages of one turn per line."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.file_index: dict[str, int] = {}
        self.speaker_index: dict[str, int] = {}
        self.parts: list[tuple[NDArray[Any], ...]] = []
        self.extras: dict[int, tuple[str, ...]] = {}
        self.count = 0
        self.ignored = 0
        self.others: list[tuple[int, str]] = []

    def read(self, text: str) -> RTTM:
        first_line = 1
        for chunk in _chunks(text):
            lines = split_lines(chunk)
            if chunk.endswith("\n"):
                lines.pop()  # the break that ends the chunk starts no line of its own
            self._add([line.split() for line in lines], first_line)
            first_line += len(lines)
        files, speakers, starts, ends, numbers = (
            np.concatenate([part[k] for part in self.parts]).astype(dtype) if self.parts
            else np.zeros(0, dtype=dtype)
            for k, dtype in enumerate((np.int32, np.int32, np.int64, np.int64, np.int64)))
        return RTTM._from_columns(
            RttmColumns(tuple(self.file_index), files, tuple(self.speaker_index), speakers,
                        starts, ends, numbers),
            self.extras, self.path, self.ignored, tuple(self.others))

    def _add(self, rows: list[list[str]], first_line: int) -> None:
        """The records of a chunk of lines split into fields, checked one at a time."""
        turns: list[RttmTurn] = []
        for offset, fields in enumerate(rows):
            if not fields or fields[0].startswith(("#", ";")):
                continue
            number = first_line + offset
            kind = fields[TYPE].upper()
            if kind != SPEAKER:
                if kind not in OTHER_RECORD_TYPES:
                    raise InputError(f"line {number}: unknown RTTM record type {fields[TYPE]!r}",
                                     path=self.path)
                self.ignored += 1
                if kind != SPEAKER_INFO:
                    self.others.append((number, kind))
                continue
            turns.append(_parse_speaker(fields, number, self.path))
        for turn in turns:
            extra = (turn.channel, turn.ortho, turn.subtype, turn.confidence, turn.slat)
            if extra != DEFAULTS:
                self.extras[self.count] = extra
            self.count += 1
        columns = RttmColumns.from_turns(turns)
        assert columns.lines is not None  # from_turns lists every turn's line
        files = np.array([self.file_index.setdefault(f, len(self.file_index))
                          for f in columns.file_names], dtype=np.int32)
        speakers = np.array([self.speaker_index.setdefault(k, len(self.speaker_index))
                             for k in columns.speaker_names], dtype=np.int32)
        # local first-appearance codes of this chunk -> codes of the whole file
        self.parts.append((files[columns.files] if files.size else columns.files,
                           speakers[columns.speakers] if speakers.size else columns.speakers,
                           columns.starts, columns.ends, columns.lines))


def _chunks(text: str) -> Iterator[str]:
    """``text`` cut after a line feed every ``_CHUNK_LINES`` lines or so (a cut after
    ``\\n`` ends a line for :func:`._io.split_lines` too, and never parts a CR LF, so
    line numbers add up)."""
    size = _CHUNK_LINES * 64
    position = 0
    while position < len(text):
        cut = text.find("\n", position + size)
        end = len(text) if cut < 0 else cut + 1
        yield text[position:end]
        position = end


def _parse_speaker(fields: list[str], number: int, where: str | None) -> RttmTurn:
    """One ``SPEAKER`` line split into fields; raises InputError with the line number."""
    if not MIN_FIELDS <= len(fields) <= MAX_FIELDS:
        raise InputError(f"line {number}: SPEAKER record needs {MIN_FIELDS} or {MAX_FIELDS} "
                         f"fields, found {len(fields)}", path=where)
    try:
        start = parse_seconds(fields[ONSET])
    except ValueError as exc:
        raise InputError(f"line {number}: bad onset: {exc}", path=where) from None
    try:
        duration = parse_seconds(fields[DURATION])
    except ValueError as exc:
        raise InputError(f"line {number}: bad duration: {exc}", path=where) from None
    if start < 0:
        raise InputError(f"line {number}: negative onset {fields[ONSET]}", path=where)
    if duration < 0:
        raise InputError(f"line {number}: negative duration {fields[DURATION]}", path=where)
    slat = fields[SLAT] if len(fields) == MAX_FIELDS else PLAIN[SLAT]
    return RttmTurn.from_seconds(fields[FILE], start, duration, fields[NAME],
                                 channel=fields[CHANNEL], ortho=fields[ORTHO],
                                 subtype=fields[SUBTYPE], confidence=fields[CONFIDENCE],
                                 slat=slat, line=number)
