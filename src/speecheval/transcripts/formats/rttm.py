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

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.decimal_seconds import format_seconds, parse_seconds
from ...core.errors import InputError
from ...core.timebase import to_us
from ...core.timeline import Span
from ._io import data_lines, read_text, write_new
from .timed import SpanInSeconds

NA = "<NA>"
SPEAKER = "SPEAKER"
SPEAKER_INFO = "SPKR-INFO"
# Record types of the RTTM specification (NIST RT-09 plan, appendix A), as md-eval knows them.
OTHER_RECORD_TYPES = frozenset({
    "SEGMENT", "NOSCORE", "NO_RT_METADATA", "LEXEME", "NON-LEX", "NON-SPEECH", "FILLER",
    "EDIT", "IP", "CB", "A/P", "SU", "SPKR-INFO",
})
_MIN_FIELDS = 9  # md-eval's minimum; the tenth (signal look-ahead time) is optional
_MAX_FIELDS = 10


@dataclass(frozen=True)
class RttmTurn(SpanInSeconds):
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
    channel: str = "1"
    ortho: str = NA
    subtype: str = NA
    confidence: str = NA
    slat: str = NA
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


@dataclass(frozen=True)
class RTTM:
    """The ``SPEAKER`` turns of one RTTM file, in file order.

    ``ignored_records`` counts the other records; ``other_records`` gives ``(line, type)``
    of those that are not ``SPKR-INFO`` (md-eval turns ``NOSCORE`` and ``NON-LEX`` into
    no-score zones and dscore reads any of them as a turn, so the compatibility modes
    refuse them).
    """

    turns: tuple[RttmTurn, ...]
    path: str | None = None
    ignored_records: int = 0
    other_records: tuple[tuple[int, str], ...] = ()

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
        turns: list[RttmTurn] = []
        ignored = 0
        others: list[tuple[int, str]] = []
        for number, stripped in data_lines(text, ("#", ";")):
            fields = stripped.split()
            kind = fields[0].upper()
            if kind != SPEAKER:
                if kind not in OTHER_RECORD_TYPES:
                    raise InputError(f"line {number}: unknown RTTM record type {fields[0]!r}",
                                     path=where)
                ignored += 1
                if kind != SPEAKER_INFO:
                    others.append((number, kind))
                continue
            turns.append(_parse_speaker(fields, number, where))
        return cls(tuple(turns), path=where, ignored_records=ignored,
                   other_records=tuple(others))

    @classmethod
    def load(cls, path: str | Path) -> RTTM:
        """Read and parse an RTTM file (UTF-8, a BOM is dropped)."""
        return cls.parse(read_text(path, "RTTM"), path=path)

    def dumps(self) -> str:
        """RTTM text: one ``SPEAKER`` line per turn, newline-terminated."""
        return "".join(turn.to_line() + "\n" for turn in self.turns)

    def dump(self, path: str | Path) -> None:
        """Write to a new file (never overwrites), atomically."""
        write_new(path, self.dumps())

    def file_ids(self) -> tuple[str, ...]:
        """File ids in sorted order."""
        return tuple(sorted({turn.file_id for turn in self.turns}))

    def by_file(self) -> dict[str, tuple[RttmTurn, ...]]:
        """Turns grouped by file id (file order kept inside each group)."""
        groups: dict[str, list[RttmTurn]] = {}
        for turn in self.turns:
            groups.setdefault(turn.file_id, []).append(turn)
        return {key: tuple(value) for key, value in sorted(groups.items())}


def _parse_speaker(fields: list[str], number: int, where: str | None) -> RttmTurn:
    """One ``SPEAKER`` line split into fields; raises InputError with the line number."""
    if not _MIN_FIELDS <= len(fields) <= _MAX_FIELDS:
        raise InputError(f"line {number}: SPEAKER record needs {_MIN_FIELDS} or {_MAX_FIELDS} "
                         f"fields, found {len(fields)}", path=where)
    try:
        start = parse_seconds(fields[3])
    except ValueError as exc:
        raise InputError(f"line {number}: bad onset: {exc}", path=where) from None
    try:
        duration = parse_seconds(fields[4])
    except ValueError as exc:
        raise InputError(f"line {number}: bad duration: {exc}", path=where) from None
    if start < 0:
        raise InputError(f"line {number}: negative onset {fields[3]}", path=where)
    if duration < 0:
        raise InputError(f"line {number}: negative duration {fields[4]}", path=where)
    slat = fields[9] if len(fields) == _MAX_FIELDS else NA
    return RttmTurn.from_seconds(fields[1], start, duration, fields[7], channel=fields[2],
                                 ortho=fields[5], subtype=fields[6], confidence=fields[8],
                                 slat=slat, line=number)
