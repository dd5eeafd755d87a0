"""Which speaker turns overlap a turn of another speaker (the timestamp scorers leave
such turns out of boundary errors)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ...core.timeline import Spans


def overlaps_other_speaker(starts: NDArray[np.int64], ends: NDArray[np.int64],
                           speakers: NDArray[np.int64]) -> NDArray[np.bool_]:
    """True for each interval that shares a positive stretch of time with an interval of
    another speaker (touching at one instant is not overlap; zero-length intervals share
    no time). The pairs that share time come from the sweep of
    :meth:`speecheval.core.timeline.Spans.pairwise_overlaps`.

    >>> s, e = np.array([0, 5, 8, 20]), np.array([10, 7, 12, 30])
    >>> overlaps_other_speaker(s, e, np.array([0, 0, 1, 1])).tolist()
    [True, False, True, False]
    """
    spans = Spans(starts, ends)
    pairs = spans.pairwise_overlaps(spans)
    others = speakers[pairs.first] != speakers[pairs.second]
    result = np.zeros(len(spans), dtype=bool)
    result[pairs.first[others]] = True
    return result
