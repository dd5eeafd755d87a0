"""Event sweep: cut a file's timeline into elementary intervals with constant state.

Every boundary (reference and system turns, and the edges of named regions such as the
UEM, the collar zones or a compatibility mode's scoring region) is collected, sorted and
deduplicated in integer microseconds. Between two consecutive boundaries nothing changes,
so each elementary interval carries one duration, the set of active reference and system
speakers, and whether it lies inside each named region. All DER/JER quantities are then
weighted sums over these intervals: exact in continuous time, with no 10 ms frames, and
vectorised (a few thousand intervals for an hour).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...core.timeline import Spans
from .turns import SpeakerTurns


@dataclass(frozen=True, eq=False)
class Partition:
    """Elementary intervals of one file (``n`` intervals).

    ``durations`` (n,) in µs; ``ref_active`` (n, reference speakers) and ``hyp_active``
    (n, system speakers) are boolean; ``inside[name]`` (n,) says whether an interval lies
    inside the named region given to :func:`partition`.
    """

    durations: NDArray[np.int64]
    ref_active: NDArray[np.bool_]
    hyp_active: NDArray[np.bool_]
    inside: Mapping[str, NDArray[np.bool_]]

    @property
    def n_ref(self) -> NDArray[np.int64]:
        """Number of active reference speakers per interval."""
        counts: NDArray[np.int64] = self.ref_active.sum(axis=1, dtype=np.int64)
        return counts

    @property
    def n_hyp(self) -> NDArray[np.int64]:
        """Number of active system speakers per interval."""
        counts: NDArray[np.int64] = self.hyp_active.sum(axis=1, dtype=np.int64)
        return counts


def collar_zones(boundaries: NDArray[np.int64], collar_us: int) -> Spans:
    """``[b - collar, b + collar]`` around every reference turn boundary ``b`` (md-eval -c);
    no zone at all when the collar is 0."""
    if collar_us == 0:
        return Spans.empty()
    return Spans(boundaries - collar_us, boundaries + collar_us)


def partition(ref: SpeakerTurns, hyp: SpeakerTurns, regions: Mapping[str, Spans]) -> Partition:
    """Sweep one file; ``regions`` names the spans whose membership each interval records.

    >>> from speecheval.transcripts.formats.rttm import RTTM
    >>> from speecheval.transcripts.diarization.turns import speaker_turns, turn_spans
    >>> r = speaker_turns(turn_spans(RTTM.parse("SPEAKER f 1 0 2 <NA> <NA> a <NA> <NA>").turns))
    >>> h = speaker_turns(turn_spans(RTTM.parse("SPEAKER f 1 1 2 <NA> <NA> x <NA> <NA>").turns))
    >>> uem = Spans([0], [4_000_000])
    >>> p = partition(r, h, {"uem": uem})
    >>> p.durations.tolist(), p.n_ref.tolist(), p.n_hyp.tolist(), p.inside["uem"].all()
    ([1000000, 1000000, 1000000, 1000000], [1, 1, 0, 0], [0, 1, 1, 0], np.True_)
    """
    bounds = np.unique(np.concatenate([ref.starts, ref.ends, hyp.starts, hyp.ends,
                                       *(edge for spans in regions.values()
                                         for edge in (spans.starts, spans.ends))]))
    ref_active = coverage(bounds, ref.starts, ref.ends, ref.speakers, len(ref.labels)) > 0
    hyp_active = coverage(bounds, hyp.starts, hyp.ends, hyp.speakers, len(hyp.labels)) > 0
    return Partition(durations=np.diff(bounds), ref_active=ref_active, hyp_active=hyp_active,
                     inside={name: covered(bounds, spans) for name, spans in regions.items()})


def covered(bounds: NDArray[np.int64], spans: Spans) -> NDArray[np.bool_]:
    """Whether each elementary interval between ``bounds`` lies inside any of the spans
    (every span edge must be one of ``bounds``)."""
    zeros = np.zeros(len(spans), dtype=np.int64)
    mask: NDArray[np.bool_] = coverage(bounds, spans.starts, spans.ends, zeros, 1)[:, 0] > 0
    return mask


def coverage(bounds: NDArray[np.int64], starts: NDArray[np.int64], ends: NDArray[np.int64],
              columns: NDArray[np.int64], n_columns: int) -> NDArray[np.int64]:
    """How many ``[start, end)`` spans of each column cover each elementary interval.

    Every start and end is one of ``bounds``, so a +1 at the start's index and a -1 at
    the end's index followed by a cumulative sum gives the coverage count.
    """
    n = bounds.size
    if n_columns == 0 or n == 0:
        return np.zeros((max(n - 1, 0), n_columns), dtype=np.int64)
    size = n * n_columns
    opened = np.bincount(np.searchsorted(bounds, starts) * n_columns + columns, minlength=size)
    closed = np.bincount(np.searchsorted(bounds, ends) * n_columns + columns, minlength=size)
    steps = (opened - closed).reshape(n, n_columns)
    return np.cumsum(steps, axis=0)[:-1]
