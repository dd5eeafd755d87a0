"""Speaker turns of one file as integer-microsecond arrays, with self-overlaps merged.

RTTM files often hold overlapping turns of the same speaker (a system that emits
overlapping windows, or a reference exported from subtitles). md-eval-22 accepts such
input with a warning (its check for it never fires) and then puts collars on the inner
boundaries and counts the self-overlap as overlapping speech; counting the speaker twice
would inflate both the reference time and the false alarms. Here a speaker's
overlapping turns are merged into one and the merges are counted, so the cleaning is
visible in the result. Turns that only touch (``end == next start``) are kept apart: the
boundary between them is a real reference boundary and gets a collar, as in md-eval and
pyannote.metrics. Zero-length turns carry no speech and no boundary; they are dropped and
counted. The turns as read stay available (``raw_*``) for ``--compat md-eval``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...core.timebase import US_PER_S
from ..formats.rttm import RttmTurn
from .result import TurnCounts


@dataclass(frozen=True, eq=False)
class SpeakerTurns:
    """Merged turns of one file: ``speakers[k]`` talks over ``[starts[k], ends[k])`` in µs.

    ``labels[i]`` is the name of speaker index ``i`` (labels sorted, so indices are
    deterministic); arrays are ordered by speaker, then start. ``raw_starts``,
    ``raw_ends`` and ``raw_speakers`` are the turns as read, in input order, zero-length
    and self-overlapping ones included.
    """

    labels: tuple[str, ...]
    starts: NDArray[np.int64]
    ends: NDArray[np.int64]
    speakers: NDArray[np.int64]
    counts: TurnCounts
    raw_starts: NDArray[np.int64]
    raw_ends: NDArray[np.int64]
    raw_speakers: NDArray[np.int64]


def speaker_turns(turns: Sequence[RttmTurn]) -> SpeakerTurns:
    """Convert RTTM turns of one file to merged microsecond arrays.

    >>> from speecheval.transcripts.formats.rttm import RTTM
    >>> rttm = RTTM.parse("SPEAKER f 1 0 2 <NA> <NA> a <NA> <NA>\\n"
    ...                   "SPEAKER f 1 1 2 <NA> <NA> a <NA> <NA>\\n"
    ...                   "SPEAKER f 1 3 1 <NA> <NA> a <NA> <NA>\\n"
    ...                   "SPEAKER f 1 5 0 <NA> <NA> b <NA> <NA>\\n")
    >>> merged = speaker_turns(rttm.turns)
    >>> merged.starts.tolist(), merged.ends.tolist(), merged.counts
    ([0, 3000000], [3000000, 4000000], TurnCounts(turns=4, merges=1, empty=1))
    """
    starts_s = np.array([turn.start for turn in turns], dtype=np.float64)
    durations_s = np.array([turn.duration for turn in turns], dtype=np.float64)
    return speaker_turns_us([turn.speaker for turn in turns], seconds_to_us(starts_s),
                            seconds_to_us(starts_s + durations_s))


def speaker_turns_us(names: Sequence[str], starts: NDArray[np.int64],
                     ends: NDArray[np.int64]) -> SpeakerTurns:
    """:func:`speaker_turns` of turns already in microseconds (``names[k]`` speaks over
    ``[starts[k], ends[k])``)."""
    labels = tuple(sorted(set(names)))
    index = {label: i for i, label in enumerate(labels)}
    speakers = np.array([index[name] for name in names], dtype=np.int64)
    keep = ends > starts
    empty = int(np.count_nonzero(~keep))
    merged_starts, merged_ends, merged_speakers = merge_self_overlaps(
        starts[keep], ends[keep], speakers[keep])
    merges = int(np.count_nonzero(keep)) - merged_starts.size
    return SpeakerTurns(labels=labels, starts=merged_starts, ends=merged_ends,
                        speakers=merged_speakers,
                        counts=TurnCounts(turns=len(names), merges=merges, empty=empty),
                        raw_starts=starts, raw_ends=ends, raw_speakers=speakers)


def seconds_to_us(seconds: NDArray[np.float64]) -> NDArray[np.int64]:
    """Vectorised :func:`speecheval.core.timebase.to_us` (same half-to-even rounding).

    >>> seconds_to_us(np.array([6.32000000000005, 0.0000015, 0.0000025])).tolist()
    [6320000, 2, 2]
    >>> from speecheval.core.timebase import to_us
    >>> [to_us(x) for x in (6.32000000000005, 0.0000015, 0.0000025)]
    [6320000, 2, 2]
    """
    return np.rint(seconds * US_PER_S).astype(np.int64)


def merge_self_overlaps(
    starts: NDArray[np.int64], ends: NDArray[np.int64], speakers: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Merge strictly overlapping turns of the same speaker, vectorised.

    Each speaker's times are shifted by ``speaker * (max_end + 1)`` so that one running
    maximum over all turns never carries an end time from one speaker into the next.

    >>> s, e, k = merge_self_overlaps(np.array([5, 0, 1, 4]), np.array([6, 2, 3, 5]),
    ...                               np.array([0, 0, 0, 1]))
    >>> s.tolist(), e.tolist(), k.tolist()
    ([0, 5, 4], [3, 6, 5], [0, 0, 1])
    """
    if starts.size == 0:
        return starts, ends, speakers
    order = np.lexsort((starts, speakers))
    starts, ends, speakers = starts[order], ends[order], speakers[order]
    offset = speakers * (int(ends.max()) + 1)
    running_end = np.maximum.accumulate(ends + offset)
    opens = np.ones(starts.size, dtype=bool)
    opens[1:] = starts[1:] + offset[1:] >= running_end[:-1]
    first = np.flatnonzero(opens)
    last = np.append(first[1:] - 1, starts.size - 1)
    return starts[first], running_end[last] - offset[last], speakers[first]
