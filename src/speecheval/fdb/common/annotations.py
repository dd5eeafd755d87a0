"""Transcripts and dataset annotations of one sample, on the microsecond time base.

Every time is rounded to the microsecond when it is read (``core.timebase.to_us``), so
float noise such as 6.32000000000005 against 6.32 cannot change an outcome. The checks
here are those of the spec's "Inputs and checks": a failed check stops the run with the
sample id, the file and the problem.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ...core.timebase import US_PER_S, to_us
from ...core.timeline import Span, Spans
from .tree import read_json


@dataclass(frozen=True)
class Word:
    """A transcript word; a null end is stored as a zero-length word at its start."""

    text: str
    start_us: int
    end_us: int
    end_was_null: bool = False


def word_spans(words: tuple[Word, ...]) -> Spans:
    """The words as spans (a null end is a zero-length span at the word's start)."""
    return Spans([w.start_us for w in words], [w.end_us for w in words])


def _number(value: Any) -> bool:
    if type(value) is float:  # the usual case first: this runs for every time read
        return math.isfinite(value)
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value))


def _timestamp_pair(item: Any, path: Path, sample_id: str, where: str,
                    allow_null_end: bool) -> tuple[float, float | None]:
    if not isinstance(item, dict):
        raise InputError(f"{where} is not an object", path=path, sample_id=sample_id)
    stamp = item.get("timestamp")
    if not isinstance(stamp, list | tuple) or len(stamp) != 2:
        raise InputError(f"{where}: timestamp must be [start, end]", path=path,
                         sample_id=sample_id)
    start, end = stamp
    if not _number(start):
        raise InputError(f"{where}: start {start!r} is not a number", path=path,
                         sample_id=sample_id)
    if end is None and allow_null_end:
        return float(start), None
    if not _number(end):
        raise InputError(f"{where}: end {end!r} is not a number", path=path,
                         sample_id=sample_id)
    return float(start), float(end)


def _check_in_window(t_us: int, duration_us: int, path: Path, sample_id: str, what: str,
                     *details: object) -> None:
    """Refuse a time outside ``[0, T]``. It is named by ``what``, a :meth:`str.format`
    template filled with ``details`` only when the time is refused: called for every word
    of every transcript, the check must not build a word's message (its repr) each time."""
    if not 0 <= t_us <= duration_us:
        raise InputError(f"{what.format(*details)} {t_us / 1e6:.6f} s lies outside the input "
                         f"window [0, {duration_us / 1e6:.6f}] s", path=path,
                         sample_id=sample_id)


TRANSCRIPT = "transcript output.json"


def load_words(path: Path, sample_id: str, duration_us: int) -> tuple[Word, ...]:
    """Words of ``output.json`` (``{"text", "chunks": [{"text", "timestamp"}]}``).

    Chunks whose text is empty after stripping are not words and are skipped. Each word
    must start inside ``[0, T]``; an end before the start is refused.
    """
    return words_from(read_json(path, sample_id=sample_id, what=TRANSCRIPT), path,
                      sample_id, duration_us)


def words_from(data: Any, path: Path, sample_id: str, duration_us: int) -> tuple[Word, ...]:
    """:func:`load_words` on the parsed content ``data`` of ``path``."""
    if not isinstance(data, dict) or not isinstance(data.get("chunks"), list):
        raise InputError("transcript must be an object with a 'chunks' list", path=path,
                         sample_id=sample_id)
    words = _plain_words(data["chunks"], duration_us)
    if words is None:  # something to refuse, or an unusual value: every check, in order
        words = _checked_words(data["chunks"], path, sample_id, duration_us)
    words.sort(key=_WORD_ORDER)
    return tuple(words)


_WORD_ORDER = attrgetter("start_us", "end_us")


def _plain_words(chunks: list[Any], duration_us: int) -> list[Word] | None:
    """The words of ``chunks`` when every chunk is the usual kind (an object with a
    string text and two finite float times, a start inside ``[0, T]`` and an end not
    before it), else None, for :func:`_checked_words` to find what to refuse.

    Why: a scorer reads every word of every transcript (6,000 on the full-size tree);
    this is :func:`_checked_words`'s loop with its checks written inline for that kind
    of chunk, which gives the same words (``tests/fdb10/test_transcript_words.py``)."""
    words = []
    isfinite = math.isfinite
    for chunk in chunks:
        if type(chunk) is not dict:
            return None
        stamp, text = chunk.get("timestamp"), chunk.get("text")
        if type(stamp) is not list or len(stamp) != 2 or type(text) is not str:
            return None
        start, end = stamp
        if type(start) is not float or type(end) is not float or not (
                isfinite(start) and isfinite(end)):
            return None
        text = text.strip()
        if text == "":
            continue
        start_us, end_us = round(start * US_PER_S), round(end * US_PER_S)
        if not 0 <= start_us <= duration_us or end_us < start_us:
            return None
        words.append(Word(text, start_us, end_us, False))
    return words


def _checked_words(chunks: list[Any], path: Path, sample_id: str, duration_us: int
                   ) -> list[Word]:
    """The words of ``chunks``, each check made in turn: a chunk that fails one is
    refused with what failed (the simple path, which any chunk may take)."""
    words = []
    for index, chunk in enumerate(chunks):
        where = f"chunks[{index}]"
        start, end = _timestamp_pair(chunk, path, sample_id, where, allow_null_end=True)
        text = chunk.get("text")
        if not isinstance(text, str):
            raise InputError(f"{where}: text must be a string", path=path, sample_id=sample_id)
        text = text.strip()
        if text == "":
            continue
        start_us = to_us(start)
        _check_in_window(start_us, duration_us, path, sample_id, "{} ({!r}) starts at", where,
                         text)
        end_us = start_us if end is None else to_us(end)
        if end_us < start_us:
            raise InputError(f"{where} ({text!r}) ends before it starts", path=path,
                             sample_id=sample_id)
        words.append(Word(text, start_us, end_us, end is None))
    return words


def _annotation_list(data: Any, path: Path, sample_id: str, what: str) -> list[Any]:
    if not isinstance(data, list) or len(data) == 0:
        raise InputError(f"{what} must be a non-empty list", path=path, sample_id=sample_id)
    return data


def load_pauses(path: Path, sample_id: str, duration_us: int) -> Spans:
    """Pauses of ``pause.json``: at least one, each ``a <= b`` in [0, T], sorted, disjoint."""
    return pauses_from(read_json(path, sample_id=sample_id, what="pause.json"), path,
                       sample_id, duration_us)


def pauses_from(data: Any, path: Path, sample_id: str, duration_us: int) -> Spans:
    """:func:`load_pauses` on the parsed content ``data`` of ``path``."""
    items = _annotation_list(data, path, sample_id, "pause.json")
    starts: list[int] = []
    ends: list[int] = []  # columns, not Span objects: this runs for every pause sample
    for index, item in enumerate(items):
        start, end = _timestamp_pair(item, path, sample_id, f"pause {index}",
                                     allow_null_end=False)
        assert end is not None
        start_us, end_us = to_us(start), to_us(end)
        _check_in_window(start_us, duration_us, path, sample_id, "pause {} starts at", index)
        _check_in_window(end_us, duration_us, path, sample_id, "pause {} ends at", index)
        if end_us < start_us:
            raise InputError(f"pause {index} ends before it starts", path=path,
                             sample_id=sample_id)
        if ends and start_us < ends[-1]:
            raise InputError(f"pause {index} starts before pause {index - 1} ends "
                             "(pauses must be sorted and not overlap)", path=path,
                             sample_id=sample_id)
        starts.append(start_us)
        ends.append(end_us)
    return Spans(starts, ends)


def load_turn_end(path: Path, sample_id: str, duration_us: int) -> int:
    """E: ``turn_taking.json[0].timestamp[0]``, the end of the user's turn."""
    return turn_end_from(read_json(path, sample_id=sample_id, what="turn_taking.json"),
                         path, sample_id, duration_us)


def turn_end_from(data: Any, path: Path, sample_id: str, duration_us: int) -> int:
    """:func:`load_turn_end` on the parsed content ``data`` of ``path``."""
    items = _annotation_list(data, path, sample_id, "turn_taking.json")
    start, _ = _timestamp_pair(items[0], path, sample_id, "turn_taking[0]",
                               allow_null_end=True)
    turn_end_us = to_us(start)
    _check_in_window(turn_end_us, duration_us, path, sample_id, "E (turn_taking[0] start)")
    return turn_end_us


def load_interruption(path: Path, sample_id: str, duration_us: int) -> Span:
    """[S, R]: ``interrupt.json[0].timestamp``, the user's interruption."""
    return interruption_from(read_json(path, sample_id=sample_id, what="interrupt.json"),
                             path, sample_id, duration_us)


def interruption_from(data: Any, path: Path, sample_id: str, duration_us: int) -> Span:
    """:func:`load_interruption` on the parsed content ``data`` of ``path``."""
    items = _annotation_list(data, path, sample_id, "interrupt.json")
    start, end = _timestamp_pair(items[0], path, sample_id, "interrupt[0]",
                                 allow_null_end=False)
    assert end is not None
    onset_us, end_us = to_us(start), to_us(end)
    _check_in_window(onset_us, duration_us, path, sample_id, "S (interruption onset)")
    _check_in_window(end_us, duration_us, path, sample_id, "R (interruption end)")
    if end_us < onset_us:
        raise InputError("interruption ends (R) before it starts (S)", path=path,
                         sample_id=sample_id)
    return Span(onset_us, end_us)
