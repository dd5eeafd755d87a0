"""Sets of instants as (n, 2) arrays of ``[start, end)`` µs: normalise, subtract, measure.

The scoring regions of a file with a million turns (the UEM minus two million collar
zones, md-eval's regions) are sets of about as many intervals. Here they stay plain
int64 arrays, and each operation is a sort of already nearly sorted edges and a few
array passes; :class:`~speecheval.core.timeline.Spans` would give the same sets, with
labels and flags this scoring does not need.

A *normalised* set is sorted, its intervals are disjoint, non-empty and maximal (two
intervals that touch are one), which is the form :meth:`Spans.union` gives.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

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
    pairs = pairs[pairs[:, 1] > pairs[:, 0]]
    if pairs.shape[0] == 0:
        return pairs
    if not bool((pairs[1:, 0] >= pairs[:-1, 0]).all()):
        pairs = pairs[np.argsort(pairs[:, 0])]
    starts, running = pairs[:, 0], np.maximum.accumulate(pairs[:, 1])
    head = np.ones(starts.size, dtype=bool)
    head[1:] = starts[1:] > running[:-1]
    last = np.append(np.flatnonzero(head)[1:] - 1, starts.size - 1)
    return np.stack([starts[head], running[last]], axis=1)


def difference(first: IntervalsLike, second: IntervalsLike) -> Intervals:
    """The instants of ``first`` outside ``second``, normalised (either may overlap
    itself).

    >>> difference([(0, 10), (10, 12)], [(2, 3), (5, 11)]).tolist()
    [[0, 2], [3, 5], [11, 12]]
    """
    mine, theirs = normalized(first), normalized(second)
    edges = np.sort(np.concatenate([mine.ravel(), theirs.ravel()]))
    distinct = np.ones(edges.size, dtype=bool)
    distinct[1:] = edges[1:] != edges[:-1]
    edges = edges[distinct]
    low, high = edges[:-1], edges[1:]
    keep = holds(mine, low) & ~holds(theirs, low)
    return runs(low, high, keep)


def holds(spans: Intervals, times: NDArray[np.int64]) -> NDArray[np.bool_]:
    """For each of the sorted ``times``, whether the normalised set holds it
    (``start <= t < end``).

    >>> holds(intervals([(0, 5), (10, 20)]), np.array([0, 5, 10, 19, 20])).tolist()
    [True, False, True, True, False]
    """
    if spans.shape[0] == 0:
        return np.zeros(times.size, dtype=bool)
    index = np.searchsorted(spans[:, 0], times, side="right") - 1
    inside: NDArray[np.bool_] = (index >= 0) & (times < spans[np.maximum(index, 0), 1])
    return inside


def runs(low: NDArray[np.int64], high: NDArray[np.int64],
         keep: NDArray[np.bool_]) -> Intervals:
    """The kept consecutive pieces ``[low[i], high[i])`` (each piece ends where the next
    begins) joined into a normalised set.

    >>> runs(np.array([0, 2, 3, 7]), np.array([2, 3, 7, 9]),
    ...      np.array([True, True, False, True])).tolist()
    [[0, 3], [7, 9]]
    """
    padded = np.concatenate([[False], keep, [False]])
    begins = np.flatnonzero(padded[1:-1] & ~padded[:-2])
    finishes = np.flatnonzero(padded[1:-1] & ~padded[2:])
    return np.stack([low[begins], high[finishes]], axis=1).astype(np.int64)


def length(given: IntervalsLike) -> int:
    """Total length of the intervals (of a set when they are disjoint)."""
    pairs = intervals(given)
    return int((pairs[:, 1] - pairs[:, 0]).sum())


def covered_before(spans: Intervals, times: NDArray[np.int64]) -> NDArray[np.int64]:
    """For each time, how much of the normalised set lies before it.

    >>> covered_before(intervals([(2, 5), (10, 20)]), np.array([0, 3, 7, 12, 30])).tolist()
    [0, 1, 3, 5, 13]
    """
    if spans.shape[0] == 0:
        return np.zeros(times.size, dtype=np.int64)
    before = np.zeros(spans.shape[0] + 1, dtype=np.int64)
    np.cumsum(spans[:, 1] - spans[:, 0], out=before[1:])
    index = np.searchsorted(spans[:, 0], times, side="right")  # sets starting at or before
    last = np.maximum(index - 1, 0)
    partial = np.minimum(times, spans[last, 1]) - spans[last, 0]
    covered: NDArray[np.int64] = np.where(index > 0, before[last] + partial, 0)
    return covered
