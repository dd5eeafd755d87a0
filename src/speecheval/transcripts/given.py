"""What the public API (:mod:`speecheval.transcripts`) accepts, turned into what the
scorers read: segments, RTTM turns, UEM regions and texts.

A caller of the API holds a file path, a document already read, or plain Python values
(strings, SegLST-like dicts, ``(start, end, speaker)`` tuples). Each is turned here into
the one type the scorer reads, so a scorer never asks where its input came from. A bad
item is an :class:`~speecheval.core.errors.InputError` naming the side (the path, or
``reference`` / ``hypothesis`` for values in memory), the item's index (from 0) and the
problem, before any scoring starts.

Nothing heavy is imported at module level: ``import speecheval.transcripts`` stays cheap.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from ..core.errors import InputError

if TYPE_CHECKING:
    from .formats.document import SegmentDocument
    from .formats.rttm import RTTM, RttmTurn
    from .formats.segment import Segment
    from .formats.uem import UEM

PathLike: TypeAlias = "str | Path"
TranscriptInput: TypeAlias = (
    "str | Path | SegmentDocument | Iterable[Segment | Mapping[str, object]]")
"""A transcript: a file path (STM, SegLST or CTM: formats whose lines name their
session), a document already read, or segments in memory (``Segment`` values or
SegLST-like dicts with ``session_id``, ``words`` and optionally ``speaker``,
``start_time``, ``end_time``)."""
TurnsInput: TypeAlias = (
    "str | Path | RTTM | Iterable[Sequence[object]]")
"""Speaker turns: an RTTM path, an :class:`RTTM`, or turns in memory: ``RttmTurn``
values, ``(start, end, speaker)`` tuples (in seconds, one recording named
:data:`DEFAULT_FILE_ID`) or ``(file_id, start, end, speaker)`` tuples."""
RegionsInput: TypeAlias = (
    "str | Path | UEM | tuple[float, float] | "
    "Mapping[str, tuple[float, float]] | None")
"""Scoring regions: a UEM path, a :class:`UEM`, one ``(start, end)`` for every file, or
``{file_id: (start, end)}``; ``None`` for the scorer's default."""

DEFAULT_FILE_ID = "file"
"""The recording that ``(start, end, speaker)`` turns belong to."""


@dataclass(frozen=True)
class Side:
    """One side's segments and the name its errors carry (a path, or the role)."""

    segments: tuple[Segment, ...]
    name: str


def _is_path(value: object) -> bool:
    return isinstance(value, str | Path)


def load_sessions(path: PathLike) -> tuple[Segment, ...]:
    """Segments of a registered format whose lines name their session (STM, SegLST, CTM):
    cp pairs reference and hypothesis speakers session by session, so a format that takes
    its session from the file name would pair nothing across ``ref`` and ``hyp``."""
    from . import formats
    from .formats.document import SessionTaggedDocument

    document = formats.format_of(path)
    if not issubclass(document, SessionTaggedDocument):
        raise InputError(f"unknown transcript format for cp: {document.format_name} files "
                         "name no session; expected STM (.stm) or SegLST (.json)", path=path)
    return document.load(path).segments


def transcript(value: TranscriptInput, role: str, name: object | None = None) -> Side:
    """The segments of one side; ``name`` (default: the path, else ``role``) is what its
    errors are about.

    >>> side = transcript([{"session_id": "s", "speaker": "A", "words": "hi there"}],
    ...                   "reference")
    >>> side.segments[0].words, side.name
    ('hi there', 'reference')
    >>> transcript([{"session_id": "s", "words": "a"}, ("A", "b")], "hypothesis")
    Traceback (most recent call last):
    ...
    speecheval.core.errors.InputError: hypothesis: item 1: expected a Segment or a \
SegLST-like dict (session_id, words, speaker, start_time, end_time), got tuple
    """
    from .formats.document import SegmentDocument
    from .formats.seglst import SegLST
    from .formats.segment import Segment

    if _is_path(value):
        assert isinstance(value, str | Path)
        return Side(load_sessions(value), str(value if name is None else name))
    where = role if name is None else str(name)
    if isinstance(value, SegmentDocument):
        return Side(value.segments, where)
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise InputError(f"expected a path, a transcript document or a list of segments, "
                         f"got {type(value).__name__}", path=where)
    items = list(value)
    rows: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        if isinstance(item, Segment):
            continue
        if not isinstance(item, dict):
            raise InputError(f"item {index}: expected a Segment or a SegLST-like dict "
                             "(session_id, words, speaker, start_time, end_time), got "
                             f"{type(item).__name__}", path=where)
        rows.append(item)
    if rows and len(rows) != len(items):
        raise InputError("mixes Segment values and dicts; give one kind", path=where)
    if rows:
        return Side(SegLST.from_rows(rows, where).segments, where)
    return Side(tuple(item for item in items if isinstance(item, Segment)), where)


def texts(value: str | Sequence[str] | Mapping[str, str], role: str) -> dict[str, str]:
    """Texts by utterance id: a mapping as given, a list by position (ids ``"0"``, ``"1"``,
    ...), one string as one utterance.

    >>> texts(["a b", "c"], "reference")
    {'0': 'a b', '1': 'c'}
    >>> texts(["a b", None], "hypothesis")
    Traceback (most recent call last):
    ...
    speecheval.core.errors.InputError: hypothesis: item 1: expected a string, got NoneType
    """
    if isinstance(value, str):
        return {"0": value}
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, Sequence):
        pairs = [(str(index), text) for index, text in enumerate(value)]
    else:
        raise InputError(f"expected a string, a list of strings or a dict of strings, got "
                         f"{type(value).__name__}", path=role)
    out: dict[str, str] = {}
    for index, (key, text) in enumerate(pairs):
        if not isinstance(text, str):
            label = f"item {index}" if not isinstance(value, Mapping) else f"id {key!r}"
            raise InputError(f"{label}: expected a string, got {type(text).__name__}",
                             path=role)
        out[str(key)] = text
    return out


def turns(value: TurnsInput, role: str) -> RTTM:
    """The speaker turns of one side as an :class:`RTTM` (whose ``path`` names it).

    >>> turns([(0.0, 1.5, "A"), (1.5, 3, "B")], "reference").file_ids()
    ('file',)
    >>> turns([(0.0, 1.5, "A"), (2.0, 1.0, "B")], "reference")
    Traceback (most recent call last):
    ...
    speecheval.core.errors.InputError: reference: item 1: end 1.0 is before start 2.0
    """
    from .formats.rttm import RTTM, RttmTurn

    if _is_path(value):
        assert isinstance(value, str | Path)
        return RTTM.load(value)
    if isinstance(value, RTTM):
        return value
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise InputError(f"expected an RTTM path, an RTTM or a list of (start, end, speaker) "
                         f"tuples, got {type(value).__name__}", path=role)
    made = [item if isinstance(item, RttmTurn) else _turn(item, index, role)
            for index, item in enumerate(value)]
    return RTTM(made, path=role)


def _turn(item: object, index: int, role: str) -> RttmTurn:
    from .formats.rttm import RttmTurn

    def refuse(problem: str) -> InputError:
        return InputError(f"item {index}: {problem}", path=role)

    if not isinstance(item, tuple | list) or len(item) not in (3, 4):
        raise refuse("expected (start, end, speaker) or (file_id, start, end, speaker), got "
                     f"{item!r}")
    file_id, start, end, speaker = item if len(item) == 4 else (DEFAULT_FILE_ID, *item)
    if not isinstance(file_id, str) or not file_id:
        raise refuse(f"the file id must be a non-empty string, got {file_id!r}")
    if not isinstance(speaker, str) or not speaker or any(c.isspace() for c in speaker):
        raise refuse(f"the speaker must be a non-empty string without spaces, got {speaker!r}")
    begin, finish = _seconds(start, "start", refuse), _seconds(end, "end", refuse)
    if begin < 0:
        raise refuse(f"negative start {begin}")
    if finish < begin:
        raise refuse(f"end {finish} is before start {begin}")
    return RttmTurn.from_seconds(file_id, begin, finish - begin, speaker, line=index)


def _seconds(value: object, what: str, refuse: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise refuse(f"the {what} must be a number of seconds, got {value!r}")
    if not math.isfinite(value):
        raise refuse(f"the {what} is not finite: {value!r}")
    return float(value)


def regions(value: RegionsInput, ref: RTTM, hyp: RTTM) -> UEM | None:
    """The scoring regions as a :class:`UEM`; ``None`` when none are given.

    >>> ref = turns([(0.0, 1.0, "A")], "reference")
    >>> regions((0.0, 4.0), ref, ref).regions("file")
    ((0.0, 4.0),)
    >>> regions({"file": (3.0, 1.0)}, ref, ref)
    Traceback (most recent call last):
    ...
    speecheval.core.errors.InputError: uem: file 'file': expected (start, end) with \
0 <= start <= end, got (3.0, 1.0)
    """
    from .formats.uem import UEM

    if value is None or isinstance(value, UEM):
        return value
    if _is_path(value):
        assert isinstance(value, str | Path)
        return UEM.load(value)
    if isinstance(value, tuple):
        every = sorted({*ref.file_ids(), *hyp.file_ids()})
        return UEM.from_regions({file_id: (_region(value, file_id),) for file_id in every})
    if isinstance(value, Mapping):
        return UEM.from_regions({str(key): (_region(region, str(key)),)
                                 for key, region in value.items()})
    raise InputError(f"expected a UEM path, a UEM, (start, end) or {{file_id: (start, end)}}, "
                     f"got {type(value).__name__}", path="uem")


def _region(value: object, file_id: str) -> tuple[float, float]:
    ok = (isinstance(value, tuple | list) and len(value) == 2
          and all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                  for v in value))
    if not ok or not 0 <= value[0] <= value[1]:  # type: ignore[index]
        raise InputError(f"file {file_id!r}: expected (start, end) with 0 <= start <= end, "
                         f"got {value!r}", path="uem")
    return float(value[0]), float(value[1])  # type: ignore[index]
