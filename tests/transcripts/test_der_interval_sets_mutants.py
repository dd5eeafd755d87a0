"""Interval-set cases found by mutation testing (docs/testing.md): each one fails on a
change of ``interval_sets.py`` that every other test let through."""

from __future__ import annotations

import numpy as np

from speecheval.core.timeline import expand
from speecheval.transcripts.diarization.interval_sets import (
    covered_before,
    intersection,
    intervals,
    normalized,
)


def test_intersection_of_two_empty_sets_is_an_empty_int64_set() -> None:
    # no interval on either side: no chunk of the larger set to walk, and the result is
    # still an (0, 2) int64 set (not a concatenation of nothing, not floats)
    empty = intervals([])
    result = intersection(empty, empty)
    assert result.shape == (0, 2)
    assert result.dtype == np.int64


def test_normalized_drops_empty_intervals_wherever_they_lie() -> None:
    # (5, 5) and (3, 3) are empty, the second inside nothing either: only [0, 1) is left;
    # a set of nothing but empty intervals is the empty (0, 2) int64 set
    assert normalized([(0, 1), (5, 5)]).tolist() == [[0, 1]]
    assert normalized([(3, 3)]).tolist() == []
    for empty in (normalized([(3, 3)]), normalized([])):
        assert empty.shape == (0, 2)
        assert empty.dtype == np.int64


def test_normalized_joins_sorted_touching_intervals() -> None:
    # already sorted, but [0, 2) and [2, 3) touch: one maximal interval [0, 3)
    assert normalized([(0, 2), (2, 3), (5, 6)]).tolist() == [[0, 3], [5, 6]]


def test_normalized_sorts_disjoint_intervals_given_out_of_order() -> None:
    # disjoint, but (3, 4) comes after (5, 6): sorted, nothing joined
    assert normalized([(0, 1), (5, 6), (3, 4)]).tolist() == [[0, 1], [3, 4], [5, 6]]


def test_expand_of_no_range_and_its_index_type() -> None:
    # no ranges at all: no pairs; ranges [2, 4) and [5, 6): pairs (0, 2) (0, 3) (1, 5),
    # as int32 (every index fits)
    rows, ks = expand(np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    assert rows.tolist() == [] and ks.tolist() == []
    rows, ks = expand(np.array([2, 5]), np.array([4, 6]))
    assert (rows.tolist(), ks.tolist()) == ([0, 0, 1], [2, 3, 5])
    assert rows.dtype == np.int32 and ks.dtype == np.int32


def test_covered_before_one_interval_and_no_interval() -> None:
    # the set [2, 5): before 0 nothing, before 3 one µs (2-3), before 9 all three;
    # an empty set covers nothing before any time; whole µs as int64 either way
    one = covered_before(intervals([(2, 5)]), np.array([0, 3, 9]))
    assert one.tolist() == [0, 1, 3]
    none = covered_before(intervals([]), np.array([0, 3]))
    assert none.tolist() == [0, 0]
    assert one.dtype == np.int64 and none.dtype == np.int64


def test_intervals_of_nothing_is_an_empty_int64_set() -> None:
    # an empty list has no element to take a type from: it is still an (0, 2) int64 set
    empty = intervals([])
    assert empty.shape == (0, 2)
    assert empty.dtype == np.int64


def test_expand_of_an_index_past_int32_keeps_it_whole() -> None:
    # one range [2**31, 2**31 + 1): a single pair (0, 2147483648); one pair and one row fit
    # int32, but the index k = 2**31 does not (int32 stops at 2**31 - 1 = 2147483647, and
    # would wrap it to -2147483648): the indices are int64
    rows, ks = expand(np.array([2**31]), np.array([2**31 + 1]))
    assert (rows.tolist(), ks.tolist()) == ([0], [2147483648])
    assert ks.dtype == np.intp
