"""Speaker-turn boundary precision, recall and F1 at each tolerance.

Boundaries are the distinct start and end instants of speaker turns. Reference turns that
overlap a turn of another speaker are left out (as in the turn timing), and so are
hypothesis boundaries that fall inside such a turn, where no reference boundary is
scored. A hypothesis boundary matches at most one reference boundary within the
tolerance; the maximum one-to-one matching of points on a line with a fixed tolerance is
found by one greedy pass over both sorted lists (match the earliest pair that is close
enough, else drop the earlier point), which is optimal because every reference point's
window has the same width.
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


def _points(starts: NDArray[np.int64], ends: NDArray[np.int64]) -> NDArray[np.int64]:
    return np.unique(np.concatenate([starts, ends]))


def boundary_counts(reference: TimedSegments, hypothesis: TimedSegments
                    ) -> dict[str, MatchCounts]:
    """Matched / reference / hypothesis boundaries per tolerance (key ``"0.25"`` ...)."""
    overlapping = overlaps_other_speaker(reference.starts, reference.ends, reference.speakers)
    ref_points = _points(reference.starts[~overlapping], reference.ends[~overlapping])
    hyp_points = _points(hypothesis.starts, hypothesis.ends)
    if overlapping.any():
        lo, hi = reference.starts[overlapping], reference.ends[overlapping]
        inside = ((hyp_points[:, None] >= lo[None, :]) & (hyp_points[:, None] <= hi[None, :]))
        hyp_points = hyp_points[~inside.any(axis=1)]
    return {repr(float(t)): MatchCounts(greedy_matches(ref_points, hyp_points, to_us(t)),
                                        int(ref_points.size), int(hyp_points.size))
            for t in TOLERANCES_S}
