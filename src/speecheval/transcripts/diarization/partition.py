"""Event sweep: cut a file's timeline into elementary intervals with constant state.

Every boundary (reference and system turns, and the edges of named regions such as the
UEM, the collar zones or a compatibility mode's scoring region) is collected, sorted and
deduplicated in integer microseconds. Between two consecutive boundaries nothing changes,
so each elementary interval carries one duration, the set of active reference and system
speakers, and whether it lies inside each named region. All DER/JER quantities are then
weighted sums over these intervals: exact in continuous time, with no 10 ms frames, and
vectorised.

Who talks where is kept as each merged turn's range of intervals (:class:`Activity`), not
as an (intervals x speakers) matrix: counts per interval are a running sum of +1/-1 steps,
a speaker's time a difference of prefix sums, and the co-occurrence of two speakers a sum
over the pairs of turns that overlap (about as many as the turns). Memory and time grow
with the turns, whatever the number of speakers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core.timeline import Spans, _expand, _sorted_unique
from .turns import SpeakerTurns


@dataclass(frozen=True, eq=False)
class Activity:
    """One side's merged turns as ranges ``[lo, hi)`` of elementary intervals.

    ``speakers[k]`` (an index into the turns' ``labels``) talks over intervals
    ``lo[k]`` to ``hi[k] - 1``; ``n_intervals`` intervals, ``n_speakers`` speakers.
    """

    lo: NDArray[np.int32]
    hi: NDArray[np.int32]
    speakers: NDArray[np.int64]
    n_intervals: int
    n_speakers: int

    @classmethod
    def of(cls, bounds: NDArray[np.int64], turns: SpeakerTurns) -> Activity:
        """Where the merged ``turns`` talk between ``bounds`` (every turn edge is one)."""
        return cls(np.searchsorted(bounds, turns.starts).astype(np.int32),
                   np.searchsorted(bounds, turns.ends).astype(np.int32), turns.speakers,
                   max(bounds.size - 1, 0), len(turns.labels))

    def counts(self) -> NDArray[np.int32]:
        """Number of active speakers per interval (+1 where a turn starts, -1 where it
        ends, summed up)."""
        steps = (np.bincount(self.lo, minlength=self.n_intervals + 1)
                 - np.bincount(self.hi, minlength=self.n_intervals + 1))
        counts: NDArray[np.int32] = np.cumsum(steps[:-1], dtype=np.int32)
        return counts

    def time(self, weights: NDArray[np.int64]) -> NDArray[np.int64]:
        """Each speaker's total ``weights`` over the intervals where it talks."""
        return _per_code(self.speakers, self.lo, self.hi, weights, self.n_speakers)


def _per_code(codes: NDArray[np.integer], lo: NDArray[np.integer], hi: NDArray[np.integer],
              weights: NDArray[np.int64], n_codes: int) -> NDArray[np.int64]:
    """Sum over ``k`` of ``weights[lo[k]:hi[k]]``, per code ``codes[k]``.

    Prefix sums give each range's total exactly (int64); the sum per code runs in float64
    and is exact too: every partial sum is a whole number of microseconds far below 2**53
    (285 years).
    """
    prefix = np.zeros(weights.size + 1, dtype=np.int64)
    np.cumsum(weights, out=prefix[1:])
    totals = np.bincount(codes, weights=prefix[hi] - prefix[lo], minlength=n_codes)
    return np.rint(totals).astype(np.int64)


@dataclass(frozen=True, eq=False)
class Partition:
    """Elementary intervals of one file (``n`` intervals).

    ``durations`` (n,) in µs; ``ref`` and ``hyp`` say which reference and system speakers
    talk in which intervals; ``inside[name]`` (n,) says whether an interval lies inside the
    named region given to :func:`partition`; ``bounds`` (n + 1,) are the interval edges.
    """

    bounds: NDArray[np.int64]
    ref: Activity
    hyp: Activity
    inside: Mapping[str, NDArray[np.bool_]]
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def durations(self) -> NDArray[np.int64]:
        """Duration of each interval (µs)."""
        if "durations" not in self._cache:
            self._cache["durations"] = np.diff(self.bounds)
        durations: NDArray[np.int64] = self._cache["durations"]
        return durations

    @property
    def n_ref(self) -> NDArray[np.int32]:
        """Number of active reference speakers per interval."""
        if "n_ref" not in self._cache:
            self._cache["n_ref"] = self.ref.counts()
        counts: NDArray[np.int32] = self._cache["n_ref"]
        return counts

    @property
    def n_hyp(self) -> NDArray[np.int32]:
        """Number of active system speakers per interval."""
        if "n_hyp" not in self._cache:
            self._cache["n_hyp"] = self.hyp.counts()
        counts: NDArray[np.int32] = self._cache["n_hyp"]
        return counts

    def overlaps(self) -> tuple[NDArray[np.integer], NDArray[np.integer], NDArray[np.integer]]:
        """Every overlapping pair of a reference and a system turn, as the intervals
        ``[lo, hi)`` they share and ``ref speaker * system speakers + system speaker``
        (computed once).

        Two turns overlap when the later one starts inside the earlier one, so the pairs
        are the system turns holding each reference start, and the reference turns
        holding each system start that begin strictly earlier: about as many pairs as
        turns, whatever the number of speakers.
        """
        if "overlap_codes" not in self._cache:
            ref, hyp = self.ref, self.hyp
            ref_rows, hyp_rows = _holding(hyp.lo, hyp.hi, ref.lo)
            later_hyp, earlier_ref = _holding(ref.lo, ref.hi, hyp.lo)
            strict = ref.lo[earlier_ref] < hyp.lo[later_hyp]
            ref_rows = np.concatenate([ref_rows, earlier_ref[strict]])
            hyp_rows = np.concatenate([hyp_rows, later_hyp[strict]])
            self._cache["overlap_lo"] = np.maximum(ref.lo[ref_rows], hyp.lo[hyp_rows])
            self._cache["overlap_hi"] = np.minimum(ref.hi[ref_rows], hyp.hi[hyp_rows])
            self._cache["overlap_codes"] = (ref.speakers[ref_rows] * hyp.n_speakers
                                            + hyp.speakers[hyp_rows]).astype(np.int32)
            del ref_rows, hyp_rows, later_hyp, earlier_ref
        return (self._cache["overlap_lo"], self._cache["overlap_hi"],
                self._cache["overlap_codes"])

    def cooccurrence(self, weights: NDArray[np.int64]) -> NDArray[np.int64]:
        """(reference, system) matrix of total ``weights`` where both speakers talk."""
        lo, hi, codes = self.overlaps()
        shape = (self.ref.n_speakers, self.hyp.n_speakers)
        return _per_code(codes, lo, hi, weights, shape[0] * shape[1]).reshape(shape)


def _holding(lo: NDArray[np.int32], hi: NDArray[np.int32],
             points: NDArray[np.int32]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Every ``(point, range)`` with ``lo[range] <= points[point] < hi[range]``.

    The ranges are indexed by their own edges, so each point falls into one cell of
    them and the ranges covering that cell are listed once (a compressed table cell ->
    ranges, as long as the ranges' cells together).
    """
    edges = _sorted_unique(np.concatenate([lo, hi]))
    ranges, cells = _expand(np.searchsorted(edges, lo), np.searchsorted(edges, hi))
    order = np.argsort(cells, kind="stable")
    ranges = ranges[order]
    offsets = np.zeros(edges.size + 1, dtype=np.intp)
    np.cumsum(np.bincount(cells, minlength=edges.size), out=offsets[1:])
    cell = np.searchsorted(edges, points, side="right") - 1
    cell = np.where(cell >= 0, cell, edges.size)  # before every range: the empty last row
    offsets = np.append(offsets, offsets[-1])
    rows, position = _expand(offsets[cell], offsets[cell + 1])
    return rows, ranges[position]


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
    return Partition(bounds=bounds, ref=Activity.of(bounds, ref), hyp=Activity.of(bounds, hyp),
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
