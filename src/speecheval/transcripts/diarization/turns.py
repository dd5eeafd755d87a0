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
counted. The turns as read stay available (``raw``) for ``--compat md-eval``.

Both sets are :class:`~speecheval.core.timeline.Spans` labelled by speaker: columns of
integer microseconds, so the merge is :meth:`Spans.union` (per label, touching turns kept
apart) and a file of millions of turns never becomes millions of Python objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...core.timeline import Spans
from ..formats.rttm import RttmTurn
from .result import TurnCounts


@dataclass(frozen=True, eq=False)
class SpeakerTurns:
    """Turns of one file: ``merged`` (self-overlaps merged, zero-length turns dropped,
    ordered by speaker then start) and ``raw`` (as read, in input order), both labelled by
    speaker name.

    The array views index speakers by ``labels`` (names sorted, so indices are
    deterministic): ``speakers[k]`` talks over ``[starts[k], ends[k])`` in µs.
    """

    merged: Spans
    raw: Spans
    counts: TurnCounts

    @property
    def labels(self) -> tuple[str, ...]:
        """Speaker names, sorted; a speaker's index into them is its id in the arrays."""
        return self.raw.label_names

    @property
    def starts(self) -> NDArray[np.int64]:
        """Merged turn starts (µs)."""
        return self.merged.starts

    @property
    def ends(self) -> NDArray[np.int64]:
        """Merged turn ends (µs)."""
        return self.merged.ends

    @property
    def speakers(self) -> NDArray[np.int64]:
        """Speaker index of each merged turn."""
        return self.merged.label_ids.astype(np.int64)

    @property
    def raw_starts(self) -> NDArray[np.int64]:
        """Starts of the turns as read (µs)."""
        return self.raw.starts

    @property
    def raw_ends(self) -> NDArray[np.int64]:
        """Ends of the turns as read (µs)."""
        return self.raw.ends

    @property
    def raw_speakers(self) -> NDArray[np.int64]:
        """Speaker index of each turn as read."""
        return self.raw.label_ids.astype(np.int64)


def turn_spans(turns: Sequence[RttmTurn]) -> Spans:
    """The spans of RTTM turns, labelled by speaker, in the given order."""
    return Spans.from_spans(turn.span for turn in turns)


def speaker_turns(raw: Spans) -> SpeakerTurns:
    """Merge each speaker's overlapping turns (see the module); ``raw`` is labelled by
    speaker.

    >>> from speecheval.transcripts.formats.rttm import RTTM
    >>> rttm = RTTM.parse("SPEAKER f 1 0 2 <NA> <NA> a <NA> <NA>\\n"
    ...                   "SPEAKER f 1 1 2 <NA> <NA> a <NA> <NA>\\n"
    ...                   "SPEAKER f 1 3 1 <NA> <NA> a <NA> <NA>\\n"
    ...                   "SPEAKER f 1 5 0 <NA> <NA> b <NA> <NA>\\n")
    >>> merged = speaker_turns(turn_spans(rttm.turns))
    >>> merged.starts.tolist(), merged.ends.tolist(), merged.counts
    ([0, 3000000], [3000000, 4000000], TurnCounts(turns=4, merges=1, empty=1))
    """
    timed = int(np.count_nonzero(raw.ends > raw.starts))
    merged = raw.union(by_label=True, join_touching=False)
    return SpeakerTurns(merged=merged, raw=raw,
                        counts=TurnCounts(turns=len(raw), merges=timed - len(merged),
                                          empty=len(raw) - timed))
