"""The segment record that every transcript format reads into and writes from.

One type for STM, CTM, SegLST, SRT, WebVTT, TextGrid and raw tagged output keeps the
scorers format-blind: a reader's only job is to produce these, with times in float
seconds on the input timeline, ``None`` where the format has no such field. The times
stay optional floats because raw model output can give a start without an end; a segment
with both has its :attr:`Segment.span` in the project's time type.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ...core.errors import InputError
from ...core.span import Span


@dataclass(frozen=True)
class Segment:
    """A stretch of transcript: who (``speaker``), when (``start``/``end``), what (``words``).

    ``line`` is where the segment came from, kept for error messages and not compared.

    >>> Segment("rec", "A", 1.0, 0.5, "hi")
    Traceback (most recent call last):
    ...
    ValueError: segment end 0.5 is before its start 1.0
    """

    session_id: str
    speaker: str | None
    start: float | None
    end: float | None
    words: str
    channel: str = "1"
    line: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        for name in ("start", "end"):
            value = getattr(self, name)
            if value is not None and not math.isfinite(value):
                raise ValueError(f"segment {name} is not finite: {value!r}")
        if self.start is not None and self.end is not None and self.end < self.start:
            raise ValueError(f"segment end {self.end} is before its start {self.start}")

    @property
    def entry(self) -> str:
        """`` (entry N)`` naming where the segment stands in its file, when that is known
        (for error messages).

        >>> Segment("rec", None, None, None, "hi", line=7).entry
        ' (entry 7)'
        """
        return "" if self.line is None else f" (entry {self.line})"

    @property
    def span(self) -> Span | None:
        """The time as a :class:`~speecheval.core.timeline.Span` labelled by the speaker
        (each end rounded to the microsecond); ``None`` unless both times are given.

        >>> Segment("rec", "A", 1.2, 6.32000000000005, "hi").span
        Span(start_us=1200000, end_us=6320000, label='A', open_at_end=False)
        """
        if self.start is None or self.end is None:
            return None
        return Span.from_seconds(self.start, self.end, self.speaker)


def first_untimed(segments: Iterable[Segment]) -> Segment | None:
    """The first segment without a start or an end time, if any.

    >>> first_untimed([Segment("r", None, 0.0, 1.0, "a"),
    ...                Segment("r", None, None, 2.0, "b")]).words
    'b'
    """
    return next((s for s in segments if s.start is None or s.end is None), None)


def is_timed(segments: Sequence[Segment] | None) -> bool:
    """Every segment has a start and an end (and there is at least one)."""
    return bool(segments) and first_untimed(segments or ()) is None


def has_speakers(segments: Sequence[Segment]) -> bool:
    """Every segment has a speaker (and there is at least one).

    The format readers do not make a file's speakers all-or-none; a reader of segments to
    score (``transcripts score``, ``cp``, ``orc``, ``tcp``) refuses a mixed file first with
    :func:`speakers_all_or_none`, after which "every segment" and "some segment" agree.
    """
    return bool(segments) and all(s.speaker is not None for s in segments)


def speakers_all_or_none(segments: Sequence[Segment], path: object,
                         sample_id: str | None = None) -> bool:
    """True when no segment lacks a speaker, False when every one does; a file where some
    have one and some do not is an InputError naming ``path`` (and ``sample_id``) and the
    first segment without one: such a file could be scored neither by speaker (some words
    are nobody's) nor without (its labels would be dropped unseen).

    >>> speakers_all_or_none([Segment("r", "A", None, None, "a"),
    ...                       Segment("r", None, None, None, "b", line=2)], "x.stm")
    Traceback (most recent call last):
    ...
    speecheval.core.errors.InputError: x.stm: some segments have a speaker and some do not (entry 2)
    """
    unlabelled = next((s for s in segments if s.speaker is None), None)
    if unlabelled is not None and any(s.speaker is not None for s in segments):
        raise InputError(f"some segments have a speaker and some do not{unlabelled.entry}",
                         path=path, sample_id=sample_id)
    return unlabelled is None
