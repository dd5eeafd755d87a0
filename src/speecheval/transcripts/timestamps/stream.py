"""Token streams with times: the input of every timestamp measure.

A stream is the tokens of a list of segments in time order, each token carrying the
microsecond span and the index (``group``) of the segment it came from. For a word-level
CTM a segment is one word, so the span is that word's time; for a transcript segment the
span is the whole segment's, which is a turn time and never a token time (spreading a
segment evenly over its tokens would invent times, so it is not done).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...core.timeline import Span, Spans
from ..formats.segment import Segment
from ..text.align import EditPath, edit_path, encode_pair
from ..text.normalize import normalize
from ..text.tokenize import Unit, tokens


@dataclass(frozen=True, eq=False)
class TimedSegments:
    """Segments in time order as arrays: ``[starts[g], ends[g])`` µs, speaker id ``speakers[g]``.

    ``speakers`` are small integers (``labels[speakers[g]]`` is the name); a segment without
    a speaker gets an id of its own, so it never counts as the same speaker as another.
    """

    starts: NDArray[np.int64]
    ends: NDArray[np.int64]
    speakers: NDArray[np.int64]
    labels: tuple[str | None, ...]
    token_text: tuple[str, ...]
    token_group: NDArray[np.int64]

    @property
    def size(self) -> int:
        """Number of segments."""
        return int(self.starts.size)

    def spans(self) -> Spans:
        """The segments' time spans (no labels), in time order."""
        return Spans(self.starts, self.ends)

    @property
    def token_starts(self) -> NDArray[np.int64]:
        """Start of each token's segment, µs."""
        return self.starts[self.token_group]

    @property
    def token_ends(self) -> NDArray[np.int64]:
        """End of each token's segment, µs."""
        return self.ends[self.token_group]


def timed_segments(segments: Sequence[Segment], unit: Unit) -> TimedSegments:
    """Sort timed segments by (start, end, file order) and tokenise them in ``unit``.

    Every segment must have a start and an end (the caller checks and names the file).

    >>> ts = timed_segments([Segment("r", "B", 2.0, 3.0, "c d"),
    ...                      Segment("r", "A", 0.0, 1.5, "a, b")], "word")
    >>> ts.token_text, ts.token_group.tolist(), ts.starts.tolist(), ts.labels
    (('a', 'b', 'c', 'd'), [0, 0, 1, 1], [0, 2000000], ('A', 'B'))
    """
    spans = [_span(segment) for segment in segments]
    order = sorted(range(len(segments)), key=lambda k: (spans[k].start_us, spans[k].end_us, k))
    ordered = [segments[k] for k in order]
    named = sorted({s.speaker for s in ordered if s.speaker is not None})
    ids = {name: index for index, name in enumerate(named)}
    labels: list[str | None] = list(named)
    speaker_ids = []
    for seg in ordered:
        if seg.speaker is None:
            speaker_ids.append(len(labels))
            labels.append(None)
        else:
            speaker_ids.append(ids[seg.speaker])
    text: list[str] = []
    group: list[int] = []
    for index, seg in enumerate(ordered):
        words = tokens(normalize(seg.words), unit)
        text.extend(words)
        group.extend([index] * len(words))
    return TimedSegments(
        starts=np.array([spans[k].start_us for k in order], dtype=np.int64),
        ends=np.array([spans[k].end_us for k in order], dtype=np.int64),
        speakers=np.array(speaker_ids, dtype=np.int64),
        labels=tuple(labels),
        token_text=tuple(text),
        token_group=np.array(group, dtype=np.int64),
    )


def _span(segment: Segment) -> Span:
    span = segment.span
    if span is None:
        raise ValueError("a timed segment needs a start and an end time")
    return span


def align_streams(reference: TimedSegments, hypothesis: TimedSegments) -> EditPath:
    """Edit path between the two token streams (same alignment as the error rates)."""
    return edit_path(*encode_pair(reference.token_text, hypothesis.token_text))


def matched_tokens(path: EditPath) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(reference token index, hypothesis token index) of the equal steps of ``path``."""
    pairs = path.matched_pairs()
    return pairs[:, 0], pairs[:, 1]
