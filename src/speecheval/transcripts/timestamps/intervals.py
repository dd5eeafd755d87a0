"""Interval arithmetic on microsecond arrays: overlap between speakers, unions, IoU."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def overlaps_other_speaker(starts: NDArray[np.int64], ends: NDArray[np.int64],
                           speakers: NDArray[np.int64]) -> NDArray[np.bool_]:
    """True for each interval that shares a positive stretch of time with an interval of
    another speaker (touching at one instant is not overlap).

    For each speaker, the others' intervals are sorted by start with a running maximum
    of their ends; interval ``i`` overlaps one of them exactly when, among those that
    start before ``ends[i]``, the largest end is after ``starts[i]``. Zero-length
    intervals are left out on both sides.

    >>> s, e = np.array([0, 5, 8, 20]), np.array([10, 7, 12, 30])
    >>> overlaps_other_speaker(s, e, np.array([0, 0, 1, 1])).tolist()
    [True, False, True, False]
    """
    result = np.zeros(starts.size, dtype=bool)
    timed = ends > starts  # a zero-length interval shares no time with anything
    for speaker in np.unique(speakers):
        mine = (speakers == speaker) & timed
        others = (speakers != speaker) & timed
        other_starts, other_ends = starts[others], ends[others]
        if other_starts.size == 0:
            continue
        order = np.argsort(other_starts, kind="stable")
        sorted_starts = other_starts[order]
        running_end = np.maximum.accumulate(other_ends[order])
        before = np.searchsorted(sorted_starts, ends[mine], side="left")
        has_any = before > 0
        latest = np.where(has_any, running_end[np.maximum(before - 1, 0)], np.iinfo(np.int64).min)
        result[mine] = has_any & (latest > starts[mine])
    return result


def union_length(starts: NDArray[np.int64], ends: NDArray[np.int64]) -> int:
    """Total length covered by the union of intervals.

    >>> union_length(np.array([0, 5, 20]), np.array([10, 12, 25]))
    17
    """
    if starts.size == 0:
        return 0
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], np.maximum.accumulate(ends[order])
    # A new block starts where the start is after every earlier end.
    new_block = np.ones(s.size, dtype=bool)
    new_block[1:] = s[1:] > e[:-1]
    block = np.cumsum(new_block) - 1
    block_start = s[new_block]
    block_end = np.zeros(block_start.size, dtype=np.int64)
    np.maximum.at(block_end, block, e)
    return int((block_end - block_start).sum())


def pair_iou(a_start: NDArray[np.int64], a_end: NDArray[np.int64], b_start: NDArray[np.int64],
             b_end: NDArray[np.int64]) -> NDArray[np.float64]:
    """Time IoU of interval pairs; two identical zero-length intervals have IoU 1.

    >>> pair_iou(np.array([0, 0]), np.array([10, 10]), np.array([5, 20]),
    ...          np.array([15, 30])).tolist()
    [0.3333333333333333, 0.0]
    """
    inter = np.maximum(0, np.minimum(a_end, b_end) - np.maximum(a_start, b_start))
    union = (a_end - a_start) + (b_end - b_start) - inter
    same_point = (union == 0) & (a_start == b_start)
    safe = np.where(union == 0, 1, union)
    iou: NDArray[np.float64] = np.where(union == 0, same_point.astype(np.float64), inter / safe)
    return iou
