"""Event sweep: cut a file's timeline into elementary intervals with constant speakers.

Every edge of a merged reference or system turn is collected, sorted and deduplicated in
integer microseconds. Between two consecutive edges nobody starts or stops talking, so
each elementary interval has one set of active reference and system speakers. All
DER/JER quantities are then weighted sums over these intervals: exact in continuous
time, with no 10 ms frames, and vectorised.

A scoring region (the UEM, the UEM minus the collars, md-eval's regions) does not cut
the intervals: it weighs them (:class:`Region`). An interval's weight is the number of
its microseconds inside the region, read off the region's cumulative length
(:func:`.interval_sets.covered_before`), and every quantity is linear in the weights, so
the sums are those of the finer partition that the region's edges would make, with
fewer intervals (the two million collar zones of a million turns add none).

Who talks where is kept as each merged turn's range of intervals (:class:`Activity`), not
as an (intervals x speakers) matrix: counts per interval are a running sum of +1/-1 steps,
a speaker's time a difference of prefix sums, and the co-occurrence of two speakers a sum
over the pairs of turns that overlap (about as many as the turns). Memory and time grow
with the turns, whatever the number of speakers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core.timeline import Spans, expand
from .interval_sets import Intervals, covered_before
from .turns import speaker_turns

_CHUNK = 1 << 18  # intervals at a time where a pass needs temporaries
_RANGES = 1 << 18  # turns at a time whose overlapping turns are listed


@dataclass(frozen=True, eq=False)
class Activity:
    """One side's merged turns as ranges ``[lo, hi)`` of elementary intervals.

    ``speakers[k]`` (an index into the turns' ``labels``) talks over intervals
    ``lo[k]`` to ``hi[k] - 1``; ``n_intervals`` intervals, ``n_speakers`` speakers.
    """

    lo: NDArray[np.int32]
    hi: NDArray[np.int32]
    speakers: NDArray[np.int32]
    n_intervals: int
    n_speakers: int

    @classmethod
    def of(cls, lo: NDArray[np.int32], hi: NDArray[np.int32], turns: Spans,
           n_bounds: int) -> Activity:
        """The merged ``turns`` (labelled by speaker) talking from edge ``lo[k]`` to edge
        ``hi[k]`` of ``n_bounds`` sorted edges (every turn edge is one)."""
        return cls(lo, hi, turns.label_ids, max(n_bounds - 1, 0), len(turns.label_names))

    def counts(self) -> NDArray[np.integer]:
        """Number of active speakers per interval (+1 where a turn starts, -1 where it
        ends, summed up). A speaker's merged turns never overlap, so at most
        ``n_speakers`` talk at once: the counts are int8 for fewer than 128 speakers (four
        million intervals need 4 MB), else int16 or int32, and are summed in that type.
        The steps are counted a chunk of intervals at a time from the sorted edges, so
        the temporaries stay small.

        >>> Activity(np.array([0, 1, 1], dtype=np.int32), np.array([2, 3, 2], dtype=np.int32),
        ...          np.arange(3, dtype=np.int32), 4, 3).counts().tolist()
        [1, 3, 1, 0]
        """
        kind: type[np.integer] = (np.int8 if self.n_speakers < 1 << 7 else np.int16
                                  if self.n_speakers < 1 << 15 else np.int32)
        counts: NDArray[np.integer] = np.zeros(self.n_intervals + 1, dtype=kind)
        for edges, step in ((self.lo, np.add), (self.hi, np.subtract)):
            ordered = np.sort(edges)
            cuts = np.searchsorted(ordered, np.arange(0, counts.size + _CHUNK, _CHUNK))
            for at, (first, stop) in enumerate(zip(cuts[:-1].tolist(), cuts[1:].tolist(),
                                                      strict=True)):
                steps = np.bincount(ordered[first:stop] - at * _CHUNK,
                                    minlength=min(_CHUNK, counts.size - at * _CHUNK))
                part = counts[at * _CHUNK:at * _CHUNK + steps.size]
                step(part, steps, out=part, casting="unsafe")  # no wider copy
        counts = counts[:-1]
        np.cumsum(counts, dtype=kind, out=counts)  # in place, in its own type: no temporary
        return counts

    def time(self, prefix: NDArray[np.int64]) -> NDArray[np.int64]:
        """Each speaker's total weight over the intervals where it talks, from the
        weights' prefix sums (:attr:`Region.prefix`)."""
        return _per_code(self.speakers, self.lo, self.hi, prefix, self.n_speakers)


def _per_code(codes: NDArray[np.integer], lo: NDArray[np.integer], hi: NDArray[np.integer],
              prefix: NDArray[np.int64], n_codes: int) -> NDArray[np.int64]:
    """Sum over ``k`` of the weights of intervals ``lo[k]`` to ``hi[k] - 1`` (from their
    prefix sums), per code ``codes[k]``.

    Prefix sums give each range's total exactly (int64); the sum per code runs in float64
    and is exact too: every partial sum is a whole number of microseconds far below 2**53
    (285 years).
    """
    totals = np.zeros(n_codes)
    for at in range(0, codes.size, _CHUNK):  # a chunk of ranges at a time: less memory
        part = prefix[hi[at:at + _CHUNK]] - prefix[lo[at:at + _CHUNK]]
        totals += np.bincount(codes[at:at + _CHUNK], weights=part, minlength=n_codes)
    return np.rint(totals).astype(np.int64)


@dataclass(frozen=True, eq=False)
class Region:
    """A scoring region as the elementary intervals see it.

    ``prefix[i]`` is the number of µs of the region in intervals ``0`` to ``i - 1``
    (n + 1 values, so the region's time in intervals ``lo`` to ``hi - 1`` is
    ``prefix[hi] - prefix[lo]``), and ``total_us`` the region's whole length, including
    any part outside every interval (silence before the first or after the last turn
    edge, where nobody talks).
    """

    prefix: NDArray[np.int64]
    total_us: int

    def weights(self, at: slice = slice(None)) -> NDArray[np.int64]:
        """The region's µs in each interval (of those in ``at``).

        >>> Region(np.array([0, 5, 8, 10]), 20).weights().tolist()
        [5, 3, 2]
        """
        start, stop, _ = at.indices(self.prefix.size - 1)
        return np.diff(self.prefix[start:stop + 1])

    def without(self, intervals: NDArray[np.bool_], *, reuse: bool = False) -> Region:
        """The region minus the given intervals (a mask over them); with ``reuse``, its
        prefix sums are written over this region's (which is then spent): no second
        array of intervals.

        >>> r = Region(np.array([0, 5, 8, 10]), 20).without(np.array([False, True, False]))
        >>> r.prefix.tolist(), r.total_us
        ([0, 5, 5, 7], 17)
        """
        whole = int(self.prefix[-1])
        prefix = self._masked_prefix(~intervals, self.prefix if reuse else None)
        return Region(prefix, self.total_us - (whole - int(prefix[-1])))

    def within(self, intervals: NDArray[np.bool_]) -> Region:
        """The part of the region inside the given intervals (a mask over them).

        >>> r = Region(np.array([0, 5, 8, 10]), 20).within(np.array([False, True, True]))
        >>> r.prefix.tolist(), r.total_us
        ([0, 0, 3, 5], 5)
        """
        prefix = self._masked_prefix(intervals)
        return Region(prefix, int(prefix[-1]))

    def _masked_prefix(self, keep: NDArray[np.bool_], out: NDArray[np.int64] | None = None
                       ) -> NDArray[np.int64]:
        """Prefix sums of the weights of the kept intervals (a chunk at a time), into
        ``out`` when given (which may be :attr:`prefix` itself: each chunk's weights are
        read before it is written, and the one value the next chunk needs is kept)."""
        prefix = np.zeros(self.prefix.size, dtype=np.int64) if out is None else out
        carry, edge = 0, int(self.prefix[0])
        for at in range(0, keep.size, _CHUNK):
            part = self.prefix[at + 1:at + 1 + _CHUNK].copy()
            next_edge = int(part[-1])
            part[1:] -= self.prefix[at + 1:at + part.size]
            part[0] -= edge
            part[~keep[at:at + _CHUNK]] = 0
            np.cumsum(part, out=part)
            part += carry
            prefix[at + 1:at + 1 + part.size] = part
            carry, edge = int(part[-1]), next_edge
        prefix[0] = 0
        return prefix


@dataclass(frozen=True, eq=False)
class Partition:
    """Elementary intervals of one file: ``bounds`` (n + 1,) are their edges, the
    distinct edges of the merged turns of both sides; ``ref`` and ``hyp`` say which
    reference and system speakers talk in which intervals.
    """

    bounds: NDArray[np.int64]
    ref: Activity
    hyp: Activity
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def n_ref(self) -> NDArray[np.integer]:
        """Number of active reference speakers per interval (not kept)."""
        return self.ref.counts()

    @property
    def n_hyp(self) -> NDArray[np.integer]:
        """Number of active system speakers per interval (not kept)."""
        return self.hyp.counts()

    def _cached(self, key: str, compute: Callable[[], NDArray[Any]]) -> NDArray[Any]:
        if key not in self._cache:
            self._cache[key] = compute()
        value: NDArray[Any] = self._cache[key]
        return value

    def region(self, spans: Intervals) -> Region:
        """The normalised set ``spans`` (:mod:`.interval_sets`) as a :class:`Region`.

        >>> part = partition(_turns([0, 4], [2, 6], [0, 0]), _turns([], [], []))
        >>> part.bounds.tolist()
        [0, 2, 4, 6]
        >>> r = part.region(np.array([[1, 5], [8, 9]]))
        >>> r.prefix.tolist(), r.total_us
        ([0, 1, 3, 4], 5)
        """
        prefix = covered_before(spans, self.bounds)
        if prefix.size:
            prefix -= prefix[0]
        else:
            prefix = np.zeros(1, dtype=np.int64)
        return Region(prefix, int((spans[:, 1] - spans[:, 0]).sum()))

    def both(self) -> NDArray[np.integer]:
        """``min(R, H)`` per interval: the number of reference speakers that are neither
        missed nor false alarm (computed once)."""
        return self._cached("both", lambda: self._both())

    def _both(self) -> NDArray[np.integer]:
        both = self.n_ref
        np.minimum(both, self.n_hyp, out=both, casting="unsafe")  # min(R, H) fits both
        # kept for every region: in 8 bits when the speakers are few
        return both.astype(np.int8, copy=False) if min(self.ref.n_speakers,
                                                       self.hyp.n_speakers) < 128 else both

    def overlaps(self) -> list[tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.integer]]]:
        """Every overlapping pair of a reference and a system turn, as the intervals
        ``[lo, hi)`` they share and ``ref speaker * system speakers + system speaker``,
        in parts (computed once; the parts are not joined, so no copy of all is made).

        Two turns overlap when the later one starts inside the earlier one, so the pairs
        are the system turns starting inside each reference turn, and the reference
        turns starting strictly inside each system turn (after it starts): about as many
        pairs as turns, whatever the number of speakers.
        """
        if "overlaps" not in self._cache:
            ref, hyp = self.ref, self.hyp
            parts = [self._shared(rows, ks) for rows, ks in
                     starting_inside(hyp.lo, ref.lo, ref.hi, strictly=False)]
            parts += [self._shared(ks, rows) for rows, ks in
                      starting_inside(ref.lo, hyp.lo, hyp.hi, strictly=True)]
            self._cache["overlaps"] = parts
        found: list[tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.integer]]] = (
            self._cache["overlaps"])
        return found

    def _shared(self, ref_rows: NDArray[np.integer], hyp_rows: NDArray[np.integer]
                ) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.integer]]:
        """The intervals ``[lo, hi)`` that pairs of overlapping turns share, and the pairs'
        codes (see :meth:`overlaps`)."""
        ref, hyp = self.ref, self.hyp
        codes = ref.speakers[ref_rows] * np.int32(hyp.n_speakers)
        codes += hyp.speakers[hyp_rows]
        # kept for every region: in 8 or 16 bits when the pairs of speakers are few
        pairs = ref.n_speakers * hyp.n_speakers
        kept = np.int8 if pairs <= 1 << 7 else np.int16 if pairs <= 1 << 15 else np.int32
        return (np.maximum(ref.lo[ref_rows], hyp.lo[hyp_rows]),
                np.minimum(ref.hi[ref_rows], hyp.hi[hyp_rows]), codes.astype(kept))

    def cooccurrence(self, prefix: NDArray[np.int64]) -> NDArray[np.int64]:
        """(reference, system) matrix of total weight where both speakers talk, from the
        weights' prefix sums (:attr:`Region.prefix`)."""
        shape = (self.ref.n_speakers, self.hyp.n_speakers)
        return sum((_per_code(codes, lo, hi, prefix, shape[0] * shape[1])
                    for lo, hi, codes in self.overlaps()),
                   np.zeros(shape[0] * shape[1], dtype=np.int64)).reshape(shape)


def starting_inside(starts: NDArray[np.integer], lo: NDArray[np.integer],
                    hi: NDArray[np.integer], *, strictly: bool
                    ) -> Iterator[tuple[NDArray[np.integer], NDArray[np.integer]]]:
    """Every ``(range, k)`` with ``lo[range] <= starts[k] < hi[range]`` (``<`` on the left
    too when ``strictly``): the ``k`` of one range are one run of the sorted starts.
    Given ``_RANGES`` ranges at a time, so that the temporaries stay small.

    >>> [(rows.tolist(), ks.tolist()) for rows, ks in starting_inside(
    ...     np.array([4, 1, 2]), np.array([0, 2]), np.array([3, 5]), strictly=False)]
    [([0, 0, 1, 1], [1, 2, 2, 0])]
    >>> [ks.tolist() for _, ks in starting_inside(
    ...     np.array([4, 1, 2]), np.array([0, 2]), np.array([3, 5]), strictly=True)]
    [[1, 2, 0]]
    """
    order = np.argsort(starts, kind="stable")
    ordered = starts[order]
    if order.size < 1 << 31:
        order = order.astype(np.int32)  # half the size of what is gathered from it
    for at in range(0, lo.size, _RANGES):
        first = np.searchsorted(ordered, lo[at:at + _RANGES], side="right" if strictly else "left")
        rows, position = expand(first, np.searchsorted(ordered, hi[at:at + _RANGES],
                                                       side="left"))
        rows += at
        yield rows, order[position]


def partition(ref: Spans, hyp: Spans) -> Partition:
    """Sweep one file's merged turns (:attr:`.turns.SpeakerTurns.merged`: a speaker's
    turns never overlap), labelled by speaker.

    >>> p = partition(_turns([0], [2_000_000], [0]), _turns([1_000_000], [3_000_000], [0]))
    >>> p.bounds.tolist(), p.n_ref.tolist(), p.n_hyp.tolist()
    ([0, 1000000, 2000000, 3000000], [1, 1, 0], [0, 1, 1])
    """
    bounds, (ref_lo, ref_hi, hyp_lo, hyp_hi) = ranked_bounds(
        [ref.starts, ref.ends, hyp.starts, hyp.ends])
    return Partition(bounds=bounds, ref=Activity.of(ref_lo, ref_hi, ref, bounds.size),
                     hyp=Activity.of(hyp_lo, hyp_hi, hyp, bounds.size))


def ranked_bounds(edges: list[NDArray[np.int64]]
                  ) -> tuple[NDArray[np.int64], list[NDArray[np.int32]]]:
    """The distinct times among ``edges``, sorted, and where each edge lies among them
    (int32 positions, one array per array of edges).

    One sort gives both: in sorted order an edge's position is the number of distinct
    times before it (a running count of the times that differ from their predecessor),
    scattered back through the sort's order; no search of every edge in the bounds, and
    no ``np.unique`` (numpy 2's hash-based one takes seconds on a few million times).
    Equal times have one position whatever their order, so the sort need not be stable:
    numpy's default one sorts in place of the order, where the stable one would take a
    merge buffer of half the order's size (the peak memory of a million turns).
    The order is walked a chunk at a time (as int32), and the bounds are then written
    from the positions over the joined edges, which are shrunk to them: no sorted copy
    of the edges.

    >>> bounds, (first, second) = ranked_bounds([np.array([5, 1]), np.array([5, 3, 1])])
    >>> bounds.tolist(), first.tolist(), second.tolist()
    ([1, 3, 5], [2, 0], [2, 1, 0])
    """
    joined = np.concatenate(edges).astype(np.int64, copy=False)
    positions = np.empty(joined.size, dtype=np.int32)
    order = _narrowed(np.argsort(joined))
    kept = 0
    for at in range(0, joined.size, _CHUNK):
        index = order[at:at + _CHUNK]
        values = joined[index]
        distinct = np.empty(values.size, dtype=bool)
        distinct[0] = not at or values[0] != joined[order[at - 1]]
        np.not_equal(values[1:], values[:-1], out=distinct[1:])
        ranks = np.cumsum(distinct, dtype=np.int32)
        ranks += kept - 1
        positions[index] = ranks
        kept = int(ranks[-1]) + 1
    parts = np.split(positions, np.cumsum([part.size for part in edges])[:-1])
    for part, times in zip(parts, edges, strict=True):
        joined[part] = times  # each edge's time at its position (repeats write it again)
    joined.resize(kept, refcheck=False)  # the bounds: the first ones written over
    return joined, parts


def _narrowed(order: NDArray[np.intp]) -> NDArray[np.integer]:
    """``order`` as int32 when every index fits, written over its own first half, which
    is then given back: no second array of indices (each int32 goes where the int64s
    already read lay).

    >>> _narrowed(np.array([2, 0, 1])).tolist()
    [2, 0, 1]
    """
    size = order.size
    if size >= 1 << 31:
        return order
    narrow = order.view(np.int32)[:size]
    for at in range(0, size, _CHUNK):
        narrow[at:at + _CHUNK] = order[at:at + _CHUNK]  # numpy buffers the overlap
    del narrow
    order.resize((size + 1) // 2, refcheck=False)
    return order.view(np.int32)[:size]


def _turns(starts: list[int], ends: list[int], speakers: list[int]) -> Spans:
    """Merged turns of speakers ``a``, ``b``, ... (for the examples)."""
    names = [chr(ord("a") + k) for k in speakers]
    return speaker_turns(Spans(starts, ends, labels=names)).merged
