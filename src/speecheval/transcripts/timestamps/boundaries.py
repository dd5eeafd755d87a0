"""Speaker-turn boundary precision, recall and F1 at each tolerance.

Turns first: on each side, consecutive segments of the same speaker that overlap or leave
a gap of at most :data:`SAME_SPEAKER_GAP_S` are joined into one turn, because a
transcript that splits one speaker's speech into sentences has not changed speaker there.
Boundaries are then the distinct start and end instants of the turns.

Reference turns that overlap a turn of another speaker are left out (as in the turn
timing), and their boundaries with them, except where such a boundary is also the
boundary of a kept turn (the shared edge of a clean turn and an overlapped one stays). A
hypothesis boundary is left out only where no reference boundary is scored: within the
tolerance of an overlapped reference turn's span and not within the tolerance of any kept
reference boundary, so a correct boundary at a shared edge is still counted.

A hypothesis boundary matches at most one reference boundary within the tolerance; the
maximum one-to-one matching of points on a line with a fixed tolerance is found by one
greedy pass over both sorted lists (match the earliest pair that is close enough, else
drop the earlier point), which is optimal because every reference point's window has the
same width.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ...core.timebase import to_us
from ..text.prf import MatchCounts
from .intervals import overlaps_other_speaker
from .stats import TOLERANCES_S
from .stream import TimedSegments


def greedy_matches(reference_us: NDArray[np.int64], hypothesis_us: NDArray[np.int64],
                   tolerance_us: int) -> int:
    """Size of a maximum one-to-one matching with ``|r - h| <= tolerance`` (sorted inputs).

    >>> greedy_matches(np.array([0, 10, 20]), np.array([3, 9, 30]), 2)
    1
    >>> greedy_matches(np.array([0, 10, 20]), np.array([3, 9, 30]), 3)
    2
    """
    i = j = matched = 0
    ref, hyp = reference_us.tolist(), hypothesis_us.tolist()
    while i < len(ref) and j < len(hyp):
        if abs(ref[i] - hyp[j]) <= tolerance_us:
            matched += 1
            i += 1
            j += 1
        elif ref[i] < hyp[j]:
            i += 1
        else:
            j += 1
    return matched


SAME_SPEAKER_GAP_S = 0.1  # joining gap between two segments of one speaker, seconds


def join_same_speaker(starts: NDArray[np.int64], ends: NDArray[np.int64],
                      speakers: NDArray[np.int64], gap_us: int
                      ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Join each speaker's segments that overlap or are at most ``gap_us`` apart.

    Returns the turns as (starts, ends, speakers), sorted by (start, end).

    >>> s, e, k = join_same_speaker(np.array([0, 3, 5, 10]), np.array([3, 6, 8, 12]),
    ...                             np.array([0, 0, 1, 0]), 1)
    >>> s.tolist(), e.tolist(), k.tolist()
    ([0, 5, 10], [6, 8, 12], [0, 1, 0])
    """
    order = np.lexsort((starts, speakers))
    s, e, k = starts[order], ends[order], speakers[order]
    if s.size == 0:
        return s, e, k
    # Running maximum of the ends within each speaker's run, so a long segment that
    # covers later short ones keeps them in one turn. Lifting each speaker's ends by
    # speaker * (range + 1) keeps one accumulate from carrying a maximum across speakers.
    lift = k * (int(e.max()) - int(e.min()) + 1)
    reach = np.maximum.accumulate(e + lift) - lift
    new_turn = np.ones(s.size, dtype=bool)
    new_turn[1:] = (k[1:] != k[:-1]) | (s[1:] > reach[:-1] + gap_us)
    turn = np.cumsum(new_turn) - 1
    turn_starts = s[new_turn]
    turn_ends = np.full(turn_starts.size, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(turn_ends, turn, e)
    turn_speakers = k[new_turn]
    by_time = np.lexsort((turn_ends, turn_starts))
    return turn_starts[by_time], turn_ends[by_time], turn_speakers[by_time]


def _points(starts: NDArray[np.int64], ends: NDArray[np.int64]) -> NDArray[np.int64]:
    return np.unique(np.concatenate([starts, ends]))


def _near(points: NDArray[np.int64], targets: NDArray[np.int64], tolerance_us: int
          ) -> NDArray[np.bool_]:
    """For each point, whether some target (sorted) lies within the tolerance."""
    if targets.size == 0:
        return np.zeros(points.size, dtype=bool)
    right = np.searchsorted(targets, points, side="left")
    after = targets[np.minimum(right, targets.size - 1)]
    before = targets[np.maximum(right - 1, 0)]
    near: NDArray[np.bool_] = ((np.abs(after - points) <= tolerance_us)
                               | (np.abs(points - before) <= tolerance_us))
    return near


def _in_spans(points: NDArray[np.int64], lo: NDArray[np.int64], hi: NDArray[np.int64]
              ) -> NDArray[np.bool_]:
    """For each point, whether it lies in some closed span ``[lo, hi]``."""
    if lo.size == 0:
        return np.zeros(points.size, dtype=bool)
    order = np.argsort(lo, kind="stable")
    lo_sorted, reach = lo[order], np.maximum.accumulate(hi[order])
    last = np.searchsorted(lo_sorted, points, side="right") - 1
    inside: NDArray[np.bool_] = (last >= 0) & (points <= reach[np.maximum(last, 0)])
    return inside


def boundary_counts(reference: TimedSegments, hypothesis: TimedSegments
                    ) -> dict[str, MatchCounts]:
    """Matched / reference / hypothesis boundaries per tolerance (key ``"0.25"`` ...)."""
    gap = to_us(SAME_SPEAKER_GAP_S)
    ref_starts, ref_ends, ref_speakers = join_same_speaker(
        reference.starts, reference.ends, reference.speakers, gap)
    hyp_starts, hyp_ends, _ = join_same_speaker(
        hypothesis.starts, hypothesis.ends, hypothesis.speakers, gap)
    overlapping = overlaps_other_speaker(ref_starts, ref_ends, ref_speakers)
    ref_points = _points(ref_starts[~overlapping], ref_ends[~overlapping])
    all_hyp_points = _points(hyp_starts, hyp_ends)
    result = {}
    for tolerance_s in TOLERANCES_S:
        tolerance = to_us(tolerance_s)
        unscored = _in_spans(all_hyp_points, ref_starts[overlapping] - tolerance,
                             ref_ends[overlapping] + tolerance)
        unscored &= ~_near(all_hyp_points, ref_points, tolerance)
        hyp_points = all_hyp_points[~unscored]
        result[repr(float(tolerance_s))] = MatchCounts(
            greedy_matches(ref_points, hyp_points, tolerance), int(ref_points.size),
            int(hyp_points.size))
    return result
