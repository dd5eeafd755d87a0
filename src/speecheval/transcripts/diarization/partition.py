"""Event sweep: cut a file's timeline into elementary intervals with constant state.

Every boundary (reference and system turns, and the edges of named regions such as the
UEM, the collar zones or a compatibility mode's scoring region) is collected, sorted and
deduplicated in integer microseconds. Between two consecutive boundaries nothing changes,
so each elementary interval carries one duration, the set of active reference and system
speakers, and whether it lies inside each named region. All DER/JER quantities are then
weighted sums over these intervals: exact in continuous time, with no 10 ms frames, and
vectorised.

Who talks where is kept as the list of ``(interval, speaker)`` pairs that hold
(:class:`Activity`), not as a (intervals x speakers) matrix: a speaker's merged turns are
disjoint, so the list is as long as the turns' intervals together, whatever the number of
speakers, and a million turns a side stay within a few hundred megabytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ...core.timeline import Spans, _expand, _sorted_unique
from .turns import SpeakerTurns


@dataclass(frozen=True, eq=False)
class Activity:
    """The ``(interval, speaker)`` pairs where a speaker talks, ordered by interval.

    ``n_intervals`` elementary intervals, ``n_speakers`` speakers (indices into the
    turns' ``labels``).
    """

    intervals: NDArray[np.int64]
    speakers: NDArray[np.int64]
    n_intervals: int
    n_speakers: int

    @classmethod
    def of(cls, bounds: NDArray[np.int64], turns: SpeakerTurns) -> Activity:
        """Where the merged ``turns`` talk between ``bounds`` (every turn edge is one)."""
        rows, intervals = _expand(np.searchsorted(bounds, turns.starts),
                                  np.searchsorted(bounds, turns.ends))
        order = np.argsort(intervals, kind="stable")
        return cls(intervals[order].astype(np.int64), turns.speakers[rows[order]],
                   max(bounds.size - 1, 0), len(turns.labels))

    def counts(self) -> NDArray[np.int64]:
        """Number of active speakers per interval."""
        counts: NDArray[np.int64] = np.bincount(self.intervals, minlength=self.n_intervals)
        return counts

    def time(self, weights: NDArray[np.int64]) -> NDArray[np.int64]:
        """Each speaker's total ``weights`` over the intervals where it talks.

        The sum runs in float64 and is exact: every partial sum is a whole number of
        microseconds far below 2**53 (285 years).
        """
        totals = np.bincount(self.speakers, weights=weights[self.intervals],
                             minlength=self.n_speakers)
        return np.rint(totals).astype(np.int64)

    def dense(self) -> NDArray[np.bool_]:
        """The (intervals, speakers) matrix of who talks (for small partitions and checks)."""
        active = np.zeros((self.n_intervals, self.n_speakers), dtype=bool)
        active[self.intervals, self.speakers] = True
        return active


@dataclass(frozen=True, eq=False)
class Partition:
    """Elementary intervals of one file (``n`` intervals).

    ``durations`` (n,) in µs; ``ref`` and ``hyp`` say which reference and system speakers
    talk in which interval; ``inside[name]`` (n,) says whether an interval lies inside the
    named region given to :func:`partition`.
    """

    durations: NDArray[np.int64]
    ref: Activity
    hyp: Activity
    inside: Mapping[str, NDArray[np.bool_]]
    _cache: dict[str, NDArray[np.int64]] = field(default_factory=dict, repr=False)

    @property
    def n_ref(self) -> NDArray[np.int64]:
        """Number of active reference speakers per interval."""
        if "n_ref" not in self._cache:
            self._cache["n_ref"] = self.ref.counts()
        return self._cache["n_ref"]

    @property
    def n_hyp(self) -> NDArray[np.int64]:
        """Number of active system speakers per interval."""
        if "n_hyp" not in self._cache:
            self._cache["n_hyp"] = self.hyp.counts()
        return self._cache["n_hyp"]

    def pairs(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Every ``(interval, ref speaker * hyp speakers + hyp speaker)`` where both talk:
        the change-point form of the co-occurrence of the two sides (computed once)."""
        if "pair_intervals" not in self._cache:
            ref, hyp = self.ref, self.hyp
            offsets = np.zeros(hyp.n_intervals + 1, dtype=np.int64)
            np.cumsum(np.bincount(hyp.intervals, minlength=hyp.n_intervals),
                      out=offsets[1:])
            rows, partners = _expand(offsets[ref.intervals], offsets[ref.intervals + 1])
            self._cache["pair_intervals"] = ref.intervals[rows]
            self._cache["pair_codes"] = (ref.speakers[rows] * hyp.n_speakers
                                         + hyp.speakers[partners])
        return self._cache["pair_intervals"], self._cache["pair_codes"]


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
    bounds = sorted_bounds([ref.starts, ref.ends, hyp.starts, hyp.ends,
                            *(edge for spans in regions.values()
                              for edge in (spans.starts, spans.ends))])
    return Partition(durations=np.diff(bounds), ref=Activity.of(bounds, ref),
                     hyp=Activity.of(bounds, hyp),
                     inside={name: covered(bounds, spans) for name, spans in regions.items()})


def sorted_bounds(edges: list[NDArray[np.int64]]) -> NDArray[np.int64]:
    """The distinct times among ``edges``, sorted (by sorting: numpy 2's hash-based
    ``np.unique`` takes seconds on a few million times)."""
    return _sorted_unique(np.concatenate(edges).astype(np.int64, copy=False))


def covered(bounds: NDArray[np.int64], spans: Spans) -> NDArray[np.bool_]:
    """Whether each elementary interval between ``bounds`` lies inside any of the spans
    (every span edge must be one of ``bounds``, so an interval is inside exactly when its
    start is)."""
    inside: NDArray[np.bool_] = spans.covers(bounds[:-1])
    return inside
