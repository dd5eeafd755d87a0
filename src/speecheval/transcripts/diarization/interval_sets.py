"""Sets of instants as (n, 2) arrays of ``[start, end)`` µs: normalise, subtract, measure.

The scoring regions of a file with a million turns (the UEM minus the collars around two
million reference boundaries, md-eval's regions) are sets of about as many intervals, kept
as the (n, 2) array form of :class:`~speecheval.core.timeline.Spans`
(:meth:`Spans.pairs`, :meth:`Spans.from_pairs`). A *normalised* set is sorted, its
intervals are disjoint, non-empty and maximal (two intervals that touch are one): the
form :meth:`Spans.union` gives.

Normalising and subtracting are :class:`Spans` operations (``benchmarks/span_sets_speed.py``:
no faster here). Three stay here, measured in the same run: the complement of the collars
(:func:`outside_around`, about five times faster than subtracting the collar zones), the
intersection sweep (its sets reach the furthest int64 instants, as complements do, which
``Spans.union`` refuses to shift) and :func:`covered_before`, which ``Spans`` has no
counterpart for (docs/adr/0014-one-time-span-one-svg-frame.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from ...core.timeline import Spans, expand

_FAR_PAST = np.iinfo(np.int64).min
_FAR_FUTURE = np.iinfo(np.int64).max
_CHUNK = 1 << 18  # elements at a time where a pass needs temporaries
Interval = tuple[int, int]
# Intervals as an (n, 2) array of [start, end) µs; lists of pairs are accepted as input.
Intervals = NDArray[np.int64]
IntervalsLike = Intervals | Sequence[Interval]


def intervals(given: IntervalsLike) -> Intervals:
    """``given`` as an (n, 2) int64 array."""
    return np.asarray(given, dtype=np.int64).reshape(-1, 2)


def normalized(given: IntervalsLike) -> Intervals:
    """The instants of ``given`` (intervals in any order, overlapping or not) as a
    normalised set (see the module).

    >>> normalized([(5, 8), (0, 5), (9, 9), (7, 12), (20, 21)]).tolist()
    [[0, 12], [20, 21]]
    """
    pairs = intervals(given)
    starts, ends = pairs[:, 0], pairs[:, 1]
    if bool((ends > starts).all()) and bool((starts[1:] > ends[:-1]).all()):
        return pairs  # normalised already (the common case): no copy
    return Spans.from_pairs(pairs).union().pairs()


def difference(first: IntervalsLike, second: IntervalsLike) -> Intervals:
    """The instants of ``first`` outside ``second``, normalised (either may overlap
    itself): :meth:`Spans.difference`.

    >>> difference([(0, 10), (10, 12)], [(2, 3), (5, 11)]).tolist()
    [[0, 2], [3, 5], [11, 12]]
    """
    return Spans.from_pairs(first).difference(Spans.from_pairs(second)).pairs()


def gaps(spans: Intervals) -> Intervals:
    """The complement of a normalised set, from and to the furthest int64 instants.

    >>> gaps(intervals([(2, 5), (7, 9)])).tolist() == [[_FAR_PAST, 2], [5, 7], [9, _FAR_FUTURE]]
    True
    """
    starts = np.concatenate([[_FAR_PAST], spans[:, 1]])
    ends = np.concatenate([spans[:, 0], [_FAR_FUTURE]])
    return np.stack([starts, ends], axis=1)


def outside_around(points: NDArray[np.int64], radius: int) -> Intervals:
    """The normalised complement of ``[p - radius, p + radius)`` around every point
    (``radius > 0``): from the sorted distinct points, the gaps ``[p + radius,
    next - radius)`` between neighbours more than ``2 * radius`` apart, and the two
    unbounded ends, without building the zones. ``points`` is sorted in place (the
    callers pass a fresh array of boundaries: a million turns' need no second copy),
    and the gaps are written straight into the result.

    >>> outside_around(np.array([10, 3, 30, 14]), 2)[1:-1].tolist()
    [[5, 8], [16, 28]]
    >>> outside_around(np.array([10]), 2)[[0, -1], [1, 0]].tolist()
    [8, 12]
    """
    if radius <= 0:
        raise ValueError(f"radius must be positive, got {radius}")
    if points.size == 0:
        return np.array([[_FAR_PAST, _FAR_FUTURE]], dtype=np.int64)
    points.sort()
    apart = np.flatnonzero(np.diff(points) > 2 * radius)
    out = np.empty((apart.size + 2, 2), dtype=np.int64)
    out[0, 0], out[-1, 1] = _FAR_PAST, _FAR_FUTURE
    out[0, 1], out[-1, 0] = int(points[0]) - radius, int(points[-1]) + radius
    inner = out[1:-1]
    inner[:, 0] = points[apart]
    inner[:, 0] += radius
    apart += 1
    inner[:, 1] = points[apart]
    inner[:, 1] -= radius
    return out


def intersection(first: Intervals, second: Intervals) -> Intervals:
    """The instants in both normalised sets, normalised: the pieces ``[max of starts,
    min of ends)`` of each overlapping pair (pieces of one set's maximal intervals never
    touch, so no joining). The larger set is walked a chunk at a time, so that the
    temporaries stay small when one set is a single long interval.

    >>> intersection(intervals([(0, 4), (6, 10)]), intervals([(1, 2), (3, 7), (9, 12)])).tolist()
    [[1, 2], [3, 4], [6, 7], [9, 10]]
    """
    if first.shape[0] < second.shape[0]:
        first, second = second, first
    if second.shape[0] == 1:  # one region (a file's UEM, often): a clipped run of first
        return _clipped(first, int(second[0, 0]), int(second[0, 1]))
    pieces = [_pieces(first[at:at + _CHUNK], second)
              for at in range(0, first.shape[0], _CHUNK)]
    return np.concatenate(pieces) if pieces else np.zeros((0, 2), dtype=np.int64)


def _clipped(spans: Intervals, low: int, high: int) -> Intervals:
    """The normalised set ``spans`` cut to ``[low, high)``: the run of intervals that
    reach into it, copied once, the first and last one clipped.

    >>> _clipped(intervals([(0, 4), (6, 10), (12, 14)]), 2, 8).tolist()
    [[2, 4], [6, 8]]
    """
    edges = spans.reshape(-1)
    begin = int(np.searchsorted(edges, low, side="right")) // 2  # ends at or before low
    end = (int(np.searchsorted(edges, high, side="left")) + 1) // 2  # starts before high
    run = spans[begin:max(begin, end)].copy()
    if run.shape[0]:
        run[0, 0] = max(int(run[0, 0]), low)
        run[-1, 1] = min(int(run[-1, 1]), high)
    return run  # nothing empty: each interval of the run reaches into [low, high)


def _pieces(first: Intervals, second: Intervals) -> Intervals:
    """:func:`intersection`, found per interval of ``first`` as one run of ``second``."""
    # partners of each interval: from the first that ends after its start to the last
    # that starts before its end, counted on the edges of ``second`` (start, end,
    # start, ... rising strictly), searched in place: no copy of a column per chunk
    edges = second.reshape(-1)
    begin = np.searchsorted(edges, first[:, 0], side="right") // 2  # ends at or before
    end = np.searchsorted(edges, first[:, 1], side="left")
    end += 1
    end //= 2  # starts before the end
    rows, partners = expand(begin, end)
    pieces = np.stack([np.maximum(first[rows, 0], second[partners, 0]),
                       np.minimum(first[rows, 1], second[partners, 1])], axis=1)
    return pieces[pieces[:, 1] > pieces[:, 0]]


def length(given: IntervalsLike) -> int:
    """Total length of the intervals (of a set when they are disjoint)."""
    pairs = intervals(given)
    return int((pairs[:, 1] - pairs[:, 0]).sum())


def covered_before(spans: Intervals, times: NDArray[np.int64]) -> NDArray[np.int64]:
    """For each time, how much of the normalised set lies before it (a chunk of times at a
    time, so that millions of times need little memory beyond the result).

    >>> covered_before(intervals([(2, 5), (10, 20)]), np.array([0, 3, 7, 12, 30])).tolist()
    [0, 1, 3, 5, 13]
    """
    covered = np.zeros(times.size, dtype=np.int64)
    if spans.shape[0] == 0:
        return covered
    before = np.zeros(spans.shape[0] + 1, dtype=np.int64)
    np.subtract(spans[:, 1], spans[:, 0], out=before[1:])
    np.cumsum(before[1:], out=before[1:])
    # the edges of a normalised set, start, end, start, ... rise strictly: searched in
    # place (no copy of a column), the edge at or before a time is 2 k for a time inside
    # interval k and 2 k + 1 for a time in the gap after it
    edges = spans.reshape(-1)
    for at in range(0, times.size, _CHUNK):
        chunk = times[at:at + _CHUNK]
        index = np.searchsorted(edges, chunk, side="right")
        index -= 1
        index //= 2  # the last interval starting at or before the time (-1: none)
        inside = index >= 0
        index[~inside] = 0
        part = np.minimum(chunk, spans[index, 1])
        part -= spans[index, 0]
        part += before[index]
        part[~inside] = 0
        covered[at:at + _CHUNK] = part
    return covered
