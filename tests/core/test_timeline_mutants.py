"""Cases that kill mutants of ``core/timeline.py`` which the other timeline tests let live.

Expected values are worked out by hand; the arithmetic is in the comments.
"""

from __future__ import annotations

from speecheval.core.timeline import Spans


def test_overlaps_length_is_the_number_of_pairs() -> None:
    # [0, 10) meets [5, 25) (5 us) and [8, 9) (1 us); [20, 30) meets [5, 25) (5 us):
    # three pairs sharing 5 + 1 + 5 = 11 us
    pairs = Spans([0, 20], [10, 30]).pairwise_overlaps(Spans([5, 8], [25, 9]))
    assert len(pairs) == 3
    assert pairs.total_us == 11
    assert len(Spans([0], [5]).pairwise_overlaps(Spans([5], [9]))) == 0  # touching only
