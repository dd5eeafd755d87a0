"""md-eval-22's ``-1`` region where the order of simultaneous events matters and its
overlap zones: small cases worked out by hand from md-eval's loop (see
:mod:`speecheval.transcripts.diarization.md_eval`), times in plain integers."""

from __future__ import annotations

import numpy as np

from speecheval.transcripts.diarization.md_eval import (
    collared_region,
    overlap_zones,
    single_speaker_region,
    tie_sensitive_seconds,
)

# Part 1 (item 21's case): A 0-10, B 2-5, B 5-20 over [0, 8].
#   Ends first: at 5 B's end (count 1, zone [2, 5]) then B's begin (count 2, zone from 5),
#   zones [2, 5], [5, 10]; the stuck loop keeps [5, 8]: region [0, 2], [5, 8].
#   Begins first: at 5 the count goes 2 -> 3 -> 2, one zone [2, 10]: region [0, 2].
#   So ends first has 3 more (5..8).
# Part 2, 100 later: records 101-103, 103-109, 107-109 over [100, 103].
#   Ends first: at 103 the count goes 1 -> 0 -> 1; zone [107, 109] only: region [100, 103].
#   Begins first: at 103 the count goes 1 -> 2 (zone from 103) -> 1, a zone [103, 103];
#   then [107, 109]. The loop closes [100, 103] at the zone's begin, restarts at its end
#   (103), and the region's end at 103 cannot close an empty stretch, so it stays open
#   until the next zone begins at 107: region [100, 103], [103, 107], 4 more.
TURNS = [(0, 10), (2, 5), (5, 20), (101, 103), (103, 109), (107, 109)]
SCORED = [(0, 8), (100, 103)]


def pairs(intervals: np.ndarray) -> list[tuple[int, int]]:
    """The (n, 2) interval array as a list of (start, end) pairs, to compare by eye."""
    return [(int(a), int(b)) for a, b in intervals.tolist()]


def test_each_order_of_simultaneous_events_gives_its_own_region() -> None:
    assert pairs(single_speaker_region(SCORED, TURNS, ends_first=True)) == [(0, 2), (5, 8),
                                                                           (100, 103)]
    assert pairs(single_speaker_region(SCORED, TURNS, ends_first=False)) == [(0, 2), (100, 103),
                                                                       (103, 107)]


def test_tie_sensitive_time_is_the_symmetric_difference_of_the_two_orders() -> None:
    # 3 (only with ends first) + 4 (only with begins first) = 7.
    assert tie_sensitive_seconds(SCORED, TURNS) == 7
    # Without simultaneous events both orders agree: nothing at stake.
    assert tie_sensitive_seconds([(0, 30)], [(0, 10), (2, 6), (12, 20)]) == 0


def test_a_zone_before_the_scoring_region_starts_nothing() -> None:
    # Records 0-4 and 2-4 overlap on [2, 4], before the scored [6, 10]: the loop is not
    # evaluating when the zone opens, so nothing is added before 6.
    assert pairs(single_speaker_region([(6, 10)], [(0, 4), (2, 4)])) == [(6, 10)]


def test_a_zero_length_record_does_not_split_an_overlap_zone() -> None:
    # 0-10 and 2-8 overlap on [2, 8]. A zero-length record at 5 is left out; were it kept,
    # its end (sorted before its begin) would close the zone at 5 and reopen it.
    assert pairs(overlap_zones([(0, 10), (2, 8), (5, 5)])) == [(2, 8)]


def test_empty_uem_regions_are_dropped_without_collar() -> None:
    assert pairs(collared_region([(0, 10), (12, 12)], np.array([], dtype=np.int64), 0)) == [(0, 10)]


def test_the_region_does_not_depend_on_the_order_of_the_records() -> None:
    # md-eval sorts its records by midpoint; the overlap zones and the -1 region come from
    # the sorted begins and ends alone, so any order of TURNS gives the regions above.
    for order in ([5, 4, 3, 2, 1, 0], [2, 0, 4, 1, 5, 3]):
        shuffled = [TURNS[k] for k in order]
        assert pairs(overlap_zones(shuffled)) == [(2, 5), (5, 10), (107, 109)]
        assert pairs(single_speaker_region(SCORED, shuffled)) == [(0, 2), (5, 8), (100, 103)]
        assert tie_sensitive_seconds(SCORED, shuffled) == 7
