"""Cases of md-eval's scoring regions that no other test reached, found by mutation testing
(docs/testing.md): each assertion fails on a one-token change of
``transcripts/diarization/md_eval.py`` that the rest of the suite let through. The
regions are worked out by hand from md-eval's loop as :mod:`.md_eval` describes it."""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.transcripts.diarization.md_eval import (
    collared_region,
    merged_events,
    overlap_zones,
    record_zones,
    single_speaker_region,
    single_speaker_regions,
)


def test_the_region_needs_the_turns_or_their_zones() -> None:
    message = "^single_speaker_region needs the turns or their overlap zones$"
    with pytest.raises(ValueError, match=message):
        single_speaker_region([(0, 8)], None)


def test_empty_scoring_regions_are_left_out() -> None:
    # collar 0 keeps the UEM regions as they are, except the empty [12, 12)
    assert collared_region([(0, 10), (12, 12)], np.array([4]), 0).tolist() == [[0, 10]]
    # one record, no overlap: the region is [0, 8]; the empty region at 3 neither ends
    # nor restarts it (else [0, 3] and [3, 8])
    assert single_speaker_region([(0, 8), (3, 3)], [(0, 1)]).tolist() == [[0, 8]]


def test_a_zero_length_record_makes_no_overlap() -> None:
    # (4, 4) is inside (0, 10) but has no duration: it is not a record at all, so the
    # count never reaches 2, whichever of its begin and end would come first at 4
    assert overlap_zones([(0, 10), (4, 4)]).tolist() == []
    assert overlap_zones([(0, 10), (4, 4)], ends_first=False).tolist() == []


def test_records_that_touch_overlap_only_with_begins_first() -> None:
    # records [0, 5] and [5, 10]: ends first (the default), the end at 5 comes before the
    # begin at 5 and the count goes 1, 0, 1: no zone; begins first it goes 1, 2, 1 at
    # the instant 5: the zone [5, 5]
    starts, ends = np.array([0, 5]), np.array([5, 10])
    assert record_zones(starts, ends).tolist() == []
    assert record_zones(starts, ends, ends_first=False).tolist() == [[5, 5]]


def test_a_zone_ending_with_the_scoring_region_closes_nothing_more() -> None:
    # A 0-10, B 2-10: the zone [2, 10] ends at 10 with the region [0, 10]; ends first the
    # zone end comes before the region end (list order), so it opens at 10 with nothing
    # later to close at: the region is [0, 2] only
    assert single_speaker_region([(0, 10)], [(0, 10), (2, 10)]).tolist() == [[0, 2]]


def test_event_times_up_to_the_packing_limit() -> None:
    # keys are time * lists + place: times of magnitude 2**60 and above are refused, the
    # time just below is sorted
    limit = 1 << 60
    with pytest.raises(OverflowError, match="^event times too large to sort as packed keys$"):
        merged_events([np.array([limit])], [0])
    times, kinds = merged_events([np.array([limit - 1])], [0])
    assert times.tolist() == [limit - 1] and kinds.tolist() == [0]


def test_no_single_speaker_stretch_is_an_empty_int64_set() -> None:
    # two records over [0, 10] overlap everywhere the region [0, 8] is: md-eval's loop
    # keeps nothing and neither does the exact region, an (0, 2) int64 set each
    md_eval, exact = single_speaker_regions([(0, 8)], overlap_zones([(0, 10), (0, 10)]))
    for region in (md_eval, exact):
        assert region.shape == (0, 2)
        assert region.dtype == np.int64


def test_merged_events_of_eight_lists_with_negative_times_and_no_more() -> None:
    # a list's place takes the low 3 bits of a key: 8 lists fit, a 9th is refused. Lists
    # k = 0..7 of one event at time -1 each (a negative time: the shift floors it), ranked
    # 7 - k: by rank, list 7 comes first and list 0 last, all at -1
    times, kinds = merged_events([np.array([-1])] * 8, list(range(7, -1, -1)))
    assert times.tolist() == [-1] * 8
    assert kinds.tolist() == [7, 6, 5, 4, 3, 2, 1, 0]
    with pytest.raises(ValueError, match="^at most 8 lists of events, got 9$"):
        merged_events([np.array([0])] * 9, [0] * 9)
