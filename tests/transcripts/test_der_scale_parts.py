"""The parts that make ``transcripts der`` scale (interval sets as arrays, regions as
prefix sums, the overlapping pairs of turns, md-eval's merged events, the byte reader of plain
RTTM), each on small cases worked out by hand, and the chunked passes against the same
pass in one chunk on random input."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import speecheval.transcripts.diarization.compat as compat
import speecheval.transcripts.diarization.interval_sets as sets
import speecheval.transcripts.diarization.metrics as metrics
import speecheval.transcripts.diarization.partition as partition_module
from speecheval.core.timeline import Spans, expand
from speecheval.transcripts.diarization.interval_sets import (
    covered_before,
    difference,
    gaps,
    intersection,
    intervals,
    length,
    normalized,
    outside_around,
)
from speecheval.transcripts.diarization.md_eval import (
    merged_events,
    overlap_zones,
    single_speaker_region,
    single_speaker_regions,
)
from speecheval.transcripts.diarization.metrics import (
    RegionTotals,
    der_components,
    region_totals,
    speakers_present,
)
from speecheval.transcripts.diarization.partition import (
    Activity,
    Region,
    _per_code,
    partition,
    ranked_bounds,
    starting_inside,
)
from speecheval.transcripts.diarization.turns import speaker_turns
from speecheval.transcripts.formats.rttm_plain import (
    _decimals,
    _equals,
    _field_words,
    _keys,
    _windows,
    plain_columns,
)

FAR_PAST, FAR_FUTURE = np.iinfo(np.int64).min, np.iinfo(np.int64).max


def pairs(array: np.ndarray) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in array]


# --- interval sets -----------------------------------------------------------------------

def test_normalized_sorts_joins_touching_and_overlapping_and_drops_empty() -> None:
    # [7, 9) overlaps [8, 10) -> [7, 10); [10, 12) touches it -> [7, 12); [3, 3) is empty
    got = normalized([(8, 10), (3, 3), (10, 12), (0, 2), (7, 9)])
    assert pairs(got) == [(0, 2), (7, 12)]


def test_normalized_returns_a_normalised_set_itself() -> None:
    given = np.array([[0, 2], [3, 5]], dtype=np.int64)
    assert np.shares_memory(normalized(given), given)  # no copy
    assert pairs(normalized(np.zeros((0, 2), dtype=np.int64))) == []
    # a contained interval does not end the block: running maximum of the ends
    assert pairs(normalized([(0, 10), (2, 3), (4, 12)])) == [(0, 12)]


def test_gaps_reach_the_furthest_instants() -> None:
    assert pairs(gaps(intervals([(2, 5)]))) == [(FAR_PAST, 2), (5, FAR_FUTURE)]
    assert pairs(gaps(intervals([]))) == [(FAR_PAST, FAR_FUTURE)]


def test_intersection_of_sets_in_either_order() -> None:
    a = intervals([(0, 4), (6, 10)])
    b = intervals([(1, 2), (3, 7), (9, 12)])
    # [0,4) & [1,2) = [1,2); [0,4) & [3,7) = [3,4); [6,10) & [3,7) = [6,7); [6,10) & [9,12)
    expected = [(1, 2), (3, 4), (6, 7), (9, 10)]
    assert pairs(intersection(a, b)) == expected
    assert pairs(intersection(b, a)) == expected
    assert pairs(intersection(a, intervals([]))) == []
    # touching is not sharing: [4, 6) meets [0, 4) and [6, 10) at single instants only
    assert pairs(intersection(a, intervals([(4, 6)]))) == []


def test_intersection_walks_the_larger_set_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    starts = np.arange(0, 10_000, 20)
    many = np.stack([starts, starts + 10], axis=1)  # 500 intervals, 10 apart
    few = normalized([(100, 2_000), (2_500, 9_000)])
    whole = intersection(many, few)
    monkeypatch.setattr(sets, "_CHUNK", 7)
    assert np.array_equal(intersection(few, many), whole)
    # [100, 2000) holds the 95 intervals from 100 to 1980, [2500, 9000) the 325 from 2500
    assert whole.shape[0] == 95 + 325


def test_intersection_with_one_region_is_the_clipped_run() -> None:
    # the one-region path against the brute force on a grid of microseconds: the
    # instants of a set held by [low, high), as maximal runs
    rng = np.random.default_rng(5)
    for _ in range(300):
        starts = rng.integers(0, 60, 8)
        spans = normalized(np.stack([starts, starts + rng.integers(0, 9, 8)], axis=1))
        low = int(rng.integers(-5, 65))
        high = low + int(rng.integers(1, 20))
        grid = np.zeros(90, dtype=bool)
        for a, b in spans.tolist():
            grid[a:b] = True
        grid[:max(low, 0)] = False
        grid[max(high, 0):] = False
        edges = np.flatnonzero(np.diff(np.concatenate([[0], grid.astype(np.int8), [0]])))
        expected = [(int(a), int(b)) for a, b in edges.reshape(-1, 2).tolist()]
        region = intervals([(low, high)])
        assert pairs(intersection(spans, region)) == expected
        assert pairs(intersection(region, spans)) == expected


def test_outside_around_sorts_the_given_points_in_place() -> None:
    points = np.array([10, 3, 30, 14])
    outside_around(points, 2)
    assert points.tolist() == [3, 10, 14, 30]


def test_ranked_bounds_squeeze_repeats_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # the bounds are the sorted distinct edges and each edge's position is the index of
    # its time among them (what a search of every edge in the bounds gives), in chunks
    # of any size
    rng = np.random.default_rng(8)
    edges = [rng.integers(0, 40, 30), rng.integers(0, 40, 25)]
    expected = sorted(set(np.concatenate(edges).tolist()))
    for chunk in (1, 2, 3, 7, 1 << 20):  # repeats that straddle a chunk's edge, and none
        monkeypatch.setattr(partition_module, "_CHUNK", chunk)
        got, positions = ranked_bounds([edge.copy() for edge in edges])
        assert got.tolist() == expected and got.dtype == np.int64
        assert [p.tolist() for p in positions] == [
            [expected.index(t) for t in edge.tolist()] for edge in edges]
    assert ranked_bounds([np.array([4, 1]), np.array([2])])[0].tolist() == [1, 2, 4]


def test_difference_of_overlapping_lists() -> None:
    # first as a set: [0, 12); second as a set: [2, 3) + [5, 11)
    got = difference([(0, 10), (10, 12)], [(5, 11), (2, 3), (6, 7)])
    assert pairs(got) == [(0, 2), (3, 5), (11, 12)]
    assert pairs(difference([(0, 5)], [])) == [(0, 5)]
    assert pairs(difference([], [(0, 5)])) == []


def test_outside_around_points() -> None:
    # points 3, 10, 14, 30 with radius 2: zones [1,5) [8,12) [12,16) [28,32); 10 and 14
    # are 4 = 2 * radius apart, so their zones touch and no gap opens between them
    got = outside_around(np.array([10, 3, 30, 14]), 2)
    assert pairs(got) == [(FAR_PAST, 1), (5, 8), (16, 28), (32, FAR_FUTURE)]
    assert pairs(outside_around(np.array([], dtype=np.int64), 2)) == [(FAR_PAST, FAR_FUTURE)]
    with pytest.raises(ValueError, match="radius"):
        outside_around(np.array([1]), 0)


def test_expand_lists_each_range_in_order() -> None:
    rows, ks = expand(np.array([2, 0, 5, 1]), np.array([4, 0, 6, 0]))
    assert rows.tolist() == [0, 0, 2]
    assert ks.tolist() == [2, 3, 5]
    assert rows.dtype == np.int32


def test_length_and_covered_before() -> None:
    spans = intervals([(2, 5), (10, 20)])
    assert length(spans) == 13
    # before 0: nothing; 3: [2,3) = 1; 7: [2,5) = 3; 12: 3 + [10,12) = 5; 30: 3 + 10
    times = np.array([0, 2, 3, 5, 7, 10, 12, 20, 30])
    assert covered_before(spans, times).tolist() == [0, 0, 1, 3, 3, 3, 5, 13, 13]
    assert covered_before(intervals([]), times).tolist() == [0] * 9


def test_covered_before_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(4)
    spans = normalized(np.sort(rng.integers(0, 1_000, (60, 2)), axis=1))
    times = np.sort(rng.integers(-10, 1_010, 500))
    whole = covered_before(spans, times)
    monkeypatch.setattr(sets, "_CHUNK", 16)
    assert np.array_equal(covered_before(spans, times), whole)


# --- partition and regions ---------------------------------------------------------------

def turns(*spans: tuple[int, int, str]):  # type: ignore[no-untyped-def]
    return speaker_turns(Spans([s for s, _, _ in spans], [e for _, e, _ in spans],
                               labels=[k for _, _, k in spans])).merged


def example() -> partition_module.Partition:
    # reference a [0, 4), b [2, 6); system x [1, 3), y [3, 8)
    # bounds 0 1 2 3 4 6 8 -> intervals [0,1) [1,2) [2,3) [3,4) [4,6) [6,8)
    return partition(turns((0, 4, "a"), (2, 6, "b")), turns((1, 3, "x"), (3, 8, "y")))


def test_partition_counts_and_overlapping_pairs() -> None:
    part = example()
    assert part.bounds.tolist() == [0, 1, 2, 3, 4, 6, 8]
    assert part.n_ref.tolist() == [1, 1, 2, 2, 1, 0]
    assert part.n_hyp.tolist() == [0, 1, 1, 1, 1, 1]
    assert part.both().tolist() == [0, 1, 1, 1, 1, 0]
    # pairs (code = ref * 2 + hyp): a-x [1,3) = intervals 1..2, a-y [3,4) = 3,
    # b-x [2,3) = 2, b-y [3,6) = 3..4
    found = sorted((code, lo, hi) for lo, hi, code in joined(part.overlaps()))
    assert found == [(0, 1, 3), (1, 3, 4), (2, 2, 3), (3, 3, 5)]


def test_region_weights_and_totals_by_hand() -> None:
    part = example()
    # region [0.5, 5) + [7, 20): weights per interval 0.5.. in integers: use [1, 5) + [7, 9)
    region = part.region(intervals([(1, 5), (7, 9)]))
    # [0,1): 0, [1,2): 1, [2,3): 1, [3,4): 1, [4,6): 1 (4 to 5), [6,8): 1 (7 to 8)
    assert region.weights().tolist() == [0, 1, 1, 1, 1, 1]
    assert region.total_us == 6  # 4 + 2, [8, 9) lies after the last edge
    totals = region_totals(part, region)
    assert totals.ref_time.tolist() == [3, 3]  # a: 1+1+1; b: 1+1+1
    assert totals.hyp_time.tolist() == [2, 3]  # x: [1,3); y: [3,4) [4,6) [6,8)
    assert totals.cooccurrence.tolist() == [[2, 1], [1, 2]]
    assert totals.both_us == 4  # min(R, H) = 1 on intervals 1 to 4
    # mapping a-x, b-y: correct 2 + 2; scored 6, missed 6 - 4, false alarm 5 - 4
    score = der_components(totals, (np.array([0, 1]), np.array([0, 1])))
    assert (score.scored_us, score.missed_us, score.false_alarm_us, score.confusion_us,
            score.region_us) == (6, 2, 1, 0, 6)


def test_region_without_and_within_split_the_region() -> None:
    region = Region(np.array([0, 5, 8, 10, 14]), 30)  # weights 5, 3, 2, 4
    mask = np.array([False, True, True, False])
    without, within = region.without(mask), region.within(mask)
    assert without.weights().tolist() == [5, 0, 0, 4]
    assert without.total_us == 25  # 30 - 3 - 2
    assert within.weights().tolist() == [0, 3, 2, 0]
    assert within.total_us == 5
    assert region.weights(slice(1, 3)).tolist() == [3, 2]


def test_masked_prefix_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    region = Region(np.concatenate([[0], np.cumsum(rng.integers(0, 9, 100))]), 10_000)
    mask = rng.random(100) < 0.3
    whole = region.without(mask)
    # the weights kept, summed up: the prefix sums of the masked weights
    expected = np.concatenate([[0], np.cumsum(np.where(mask, 0, region.weights()))])
    assert np.array_equal(whole.prefix, expected)
    for chunk in (7, 1, 100):
        monkeypatch.setattr(partition_module, "_CHUNK", chunk)
        chunked = region.without(mask)
        assert np.array_equal(chunked.prefix, whole.prefix)
        assert chunked.total_us == whole.total_us
        spent = Region(region.prefix.copy(), region.total_us)
        reused = spent.without(mask, reuse=True)
        assert reused.prefix is spent.prefix  # written over, no copy
        assert np.array_equal(reused.prefix, whole.prefix)
        assert reused.total_us == whole.total_us


def test_range_sums_per_code_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    prefix = np.array([0, 5, 8, 10, 14])  # weights 5, 3, 2, 4
    codes, lo, hi = np.array([1, 0, 1]), np.array([0, 1, 3]), np.array([2, 4, 4])
    # code 1: [0,2) = 8 and [3,4) = 4; code 0: [1,4) = 9
    assert _per_code(codes, lo, hi, prefix, 3).tolist() == [9, 12, 0]
    monkeypatch.setattr(partition_module, "_CHUNK", 1)
    assert _per_code(codes, lo, hi, prefix, 3).tolist() == [9, 12, 0]


def test_weighted_sum_of_both_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    part = example()
    region = part.region(intervals([(0, 8)]))
    whole = region_totals(part, region).both_us
    assert whole == 1 + 1 + 1 + 2  # min(R, H) 1 on [1,4), 1 on [4,6) (2 s)
    monkeypatch.setattr(metrics, "_CHUNK", 2)
    assert region_totals(part, region).both_us == whole


def joined(parts: Iterator[tuple[np.ndarray, ...]]) -> list[tuple[int, ...]]:
    """The rows of array parts as tuples, parts in order."""
    return [tuple(int(value) for value in row) for part in parts
            for row in zip(*part, strict=True)]


def test_starting_inside_lists_starts_in_each_range(monkeypatch: pytest.MonkeyPatch) -> None:
    starts = np.array([4, 1, 2, 2])
    lo, hi = np.array([2, 0]), np.array([5, 2])
    # range [2, 5): starts 2, 2, 4 (turns 2, 3, 0); range [0, 2): start 1 (turn 1)
    expected = [(0, 2), (0, 3), (0, 0), (1, 1)]
    assert joined(starting_inside(starts, lo, hi, strictly=False)) == expected
    assert joined(starting_inside(starts, lo, hi, strictly=True)) == [(0, 0), (1, 1)]
    monkeypatch.setattr(partition_module, "_RANGES", 1)  # one range at a time
    assert joined(starting_inside(starts, lo, hi, strictly=False)) == expected


def test_counts_of_an_activity() -> None:
    # turns of four speakers over intervals [0,2) [1,3) [1,2) [3,3): +1 at 0, +2 at 1,
    # -2 at 2, -1 at 3
    lo, hi = np.array([0, 1, 1, 3], dtype=np.int32), np.array([2, 3, 2, 3], dtype=np.int32)
    speakers = np.arange(4, dtype=np.int32)
    assert Activity(lo, hi, speakers, 4, 4).counts().tolist() == [1, 3, 1, 0]
    # at most n_speakers talk at once, so the counts take the smallest type that holds it
    for n_speakers, kind in ((4, np.int8), (127, np.int8), (128, np.int16),
                             (32_767, np.int16), (32_768, np.int32)):
        counts = Activity(lo, hi, speakers, 4, n_speakers).counts()
        assert counts.dtype == kind and counts.tolist() == [1, 3, 1, 0]


def test_counts_reach_the_top_of_their_type() -> None:
    # 127 speakers all talking over interval 1 (int8's largest value), 128 over it (int16)
    for n in (127, 128):
        activity = Activity(np.ones(n, dtype=np.int32), np.full(n, 2, dtype=np.int32),
                            np.arange(n, dtype=np.int32), 3, n)
        assert activity.counts().tolist() == [0, n, 0]


def test_activity_counts_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    lo = rng.integers(0, 50, 200).astype(np.int32)
    hi = (lo + rng.integers(0, 8, 200)).clip(max=50).astype(np.int32)
    activity = Activity(lo, hi, np.arange(200, dtype=np.int32), 50, 200)
    # the speakers active in interval i: the turns with lo <= i < hi
    expected = [int(np.count_nonzero((lo <= i) & (i < hi))) for i in range(50)]
    assert activity.counts().tolist() == expected
    for chunk in (1, 7, 50):
        monkeypatch.setattr(partition_module, "_CHUNK", chunk)
        assert activity.counts().tolist() == expected


def test_region_totals_subtract_field_by_field() -> None:
    a = RegionTotals(np.array([5, 1]), np.array([4]), np.array([[3], [1]]), 4, 10)
    b = RegionTotals(np.array([2, 1]), np.array([1]), np.array([[1], [0]]), 1, 6)
    d = a - b
    assert (d.ref_time.tolist(), d.hyp_time.tolist(), d.cooccurrence.tolist(), d.both_us,
            d.region_us) == ([3, 0], [3], [[2], [1]], 3, 4)
    assert speakers_present(d.ref_time) == 1


# --- md-eval's sorts ---------------------------------------------------------------------

def test_merged_events_are_lexsort_of_rank_and_time() -> None:
    rng = np.random.default_rng(6)
    for ranks in ([1, 0, 1, 0], [0, 1, 2, 1], [0, 0]):
        lists = [rng.integers(-50, 50, rng.integers(0, 80)) for _ in ranks]
        lists[0] = np.sort(lists[0])  # sorted and unsorted lists alike
        times = np.concatenate(lists)
        kinds = np.repeat(np.arange(len(ranks)), [column.size for column in lists])
        order = np.lexsort((np.array(ranks)[kinds], times))
        merged, merged_kinds = merged_events(lists, ranks)
        assert np.array_equal(merged, times[order])
        assert np.array_equal(merged_kinds, kinds[order])
    with pytest.raises(OverflowError):
        merged_events([np.array([1 << 61])], [0])


def test_single_speaker_region_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    import speecheval.transcripts.diarization.md_eval as md_eval

    rng = np.random.default_rng(8)
    starts = rng.integers(0, 200, 60)
    turns_ = np.stack([starts, starts + rng.integers(0, 30, 60)], axis=1)
    scored = normalized(np.stack([starts[:20], starts[:20] + 15], axis=1))
    whole = [single_speaker_region(scored, turns_, ends_first=first) for first in (True, False)]
    monkeypatch.setattr(md_eval, "_CHUNK", 3)  # events merged and swept 3 at a time
    assert [pairs(single_speaker_region(scored, turns_, ends_first=first))
            for first in (True, False)] == [pairs(region) for region in whole]


def test_the_exact_single_speaker_region_is_the_scoring_region_minus_the_zones() -> None:
    # from the same sweep as md-eval's region, against the set difference, on scoring
    # regions that touch or overlap (UEM regions kept as given without a collar) and
    # records with many shared instants; md-eval's region is single_speaker_region's
    rng = np.random.default_rng(11)
    for _ in range(400):
        starts = rng.integers(0, 40, 9)
        turns = np.stack([starts, starts + rng.integers(0, 12, 9)], axis=1)
        begins = rng.integers(0, 45, 3)
        scored = np.stack([begins, begins + rng.integers(0, 15, 3)], axis=1)
        zones = overlap_zones(turns)
        md_eval, exact = single_speaker_regions(scored, zones)
        assert pairs(exact) == pairs(difference(scored, zones))
        assert pairs(md_eval) == pairs(single_speaker_region(scored, turns))
    # item 21's case: md-eval keeps [5, 8] of overlap, the exact region does not
    md_eval, exact = single_speaker_regions([(0, 8)], overlap_zones([(0, 10), (2, 5), (5, 20)]))
    assert pairs(md_eval) == [(0, 2), (5, 8)] and pairs(exact) == [(0, 2)]


def test_overlap_zones_either_order_of_one_instant() -> None:
    # A 0-4, B 4-6, C 4-8, D 2-4: ends first, the count at 4 goes 2 -> 0 -> 2 (zones
    # [2, 4] and [4, 6]); begins first it goes 2 -> 4 -> 2 (one zone, [2, 6])
    records = [(0, 4), (4, 6), (4, 8), (2, 4)]
    assert pairs(overlap_zones(records)) == [(2, 4), (4, 6)]
    assert pairs(overlap_zones(records, ends_first=False)) == [(2, 6)]


def test_single_speaker_region_with_known_zones() -> None:
    turns_ = [(0, 10), (2, 5), (5, 20)]
    zones = overlap_zones(turns_)
    assert pairs(zones) == [(2, 5), (5, 10)]
    assert pairs(single_speaker_region([(0, 8)], turns_, zones=zones)) == [(0, 2), (5, 8)]
    # zones given are used as given: none at all leaves the scoring region whole
    empty = np.zeros((0, 2), dtype=np.int64)
    assert pairs(single_speaker_region([(0, 8)], turns_, zones=empty)) == [(0, 8)]


def test_small_codes_sort_as_16_bit() -> None:
    assert compat._small(np.array([3, 0, 2])).dtype == np.int16
    assert compat._small(np.array([1 << 15])).dtype == np.int64


def test_off_grid_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # inside [0, 1 s]: 5 ms (5 ms to the grid), 1.0 s (on it), 12.345 ms (7.655 ms);
    # 2 s lies outside
    boundaries = np.array([5_000, 1_000_000, 12_345, 2_000_001])
    uem = Spans([0], [1_000_000])
    expected = compat.Occurrence(2, 5_000 + 7_655)
    assert compat.off_grid(boundaries, uem) == expected
    monkeypatch.setattr(compat, "_CHUNK", 1)
    assert compat.off_grid(boundaries, uem) == expected


# --- the byte reader of plain RTTM -------------------------------------------------------

def fields(text: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Windows over ``text`` and the offsets and lengths of its space-separated fields."""
    buf = np.frombuffer(text, dtype=np.uint8)
    at, length, position = [], [], 0
    for part in text.split(b" "):
        at.append(position)
        length.append(len(part))
        position += len(part) + 1
    return _windows(buf), np.array(at, dtype=np.int32), np.array(length, dtype=np.int32)


def test_windows_read_eight_bytes_little_endian() -> None:
    words, at, length = fields(b"ab <NA> 123456789")
    assert int(words[0]) & 0xFFFF == 0x6261  # "a" is the low byte
    assert _field_words(words, at, length).tolist() == [0x6261, 0x3E414E3C, 0x3837363534333231]
    # bytes 8 onwards of the third field: "9"; of the others: nothing
    assert _field_words(words, at, length, 8).tolist() == [0, 0, 0x39]
    assert _equals(words, at[1:2], length[1:2], b"<NA>")
    assert not _equals(words, at[:1], length[:1], b"ac")


def test_decimals_exactly_as_float_reads_them() -> None:
    texts = [b"12.5", b"0.007", b"3", b".5", b"5.", b"123456789012.345", b"0.1"]
    words, at, length = fields(b" ".join(texts))
    got = _decimals(words, at, length)
    assert got is not None
    assert got.tolist() == [float(t) for t in texts]


@pytest.mark.parametrize("text", [b"1.2.3", b"1e5", b"-1", b".", b"1234567890123456",
                                  b"12345678901234567"])
def test_decimals_refuse_what_is_not_a_short_plain_decimal(text: bytes) -> None:
    words, at, length = fields(text)
    assert _decimals(words, at, length) is None


def test_keys_of_long_fields_are_padded_bytes() -> None:
    words, at, length = fields(b"speaker_nine speaker_ten speaker_nine")
    keys = _keys(np.frombuffer(b"speaker_nine speaker_ten speaker_nine", dtype=np.uint8),
                 words, at, length)
    assert keys.tolist() == [b"speaker_nine", b"speaker_ten", b"speaker_nine"]


def test_plain_columns_of_speakers_with_long_and_short_names() -> None:
    text = (b"SPEAKER r 1 1.5 2 <NA> <NA> a_long_speaker_name <NA> <NA>\n"
            b"SPEAKER r 1 0 0.25 <NA> <NA> b <NA> <NA>\n"
            b"SPEAKER r 1 9 1 <NA> <NA> a_long_speaker_name <NA> <NA>\n")
    columns = plain_columns(text)
    assert columns is not None
    names, files, speakers, codes, starts, ends = columns
    assert (names, files.tolist()) == (("r",), [0, 0, 0])
    assert (speakers, codes.tolist()) == (("a_long_speaker_name", "b"), [0, 1, 0])
    assert starts.tolist() == [1_500_000, 0, 9_000_000]
    assert ends.tolist() == [3_500_000, 250_000, 10_000_000]
