"""Hand-worked cases added for mutants of ``fdb/v15/timing/official.py`` that the
comparisons with the official script let survive (docs/testing.md, "Surviving mutants"):
exact gaps, touching segments, and overlaps or model starts that share a millisecond."""

from __future__ import annotations

from speecheval.core.timeline import Span
from speecheval.fdb.v15.timing.official import (
    OfficialTiming,
    merge_close,
    response_intervals,
    seconds,
    stop_intervals,
)


def test_spans_in_seconds_are_divided_by_a_million() -> None:
    # 123_456_789 us / 1e6 = 123.456789 s (the nearest float, as 123456789 / 1e6 gives)
    spans = [Span(1_500_000, 2_250_000), Span(123_456_789, 123_456_790)]
    assert seconds(spans) == [(1.5, 2.25), (123.456789, 123.45679)]


def test_a_gap_of_exactly_the_merge_gap_merges() -> None:
    # gap 1.5 - 1.0 = 0.5 (exact in binary) <= 0.5: one segment; 1.5 - 0.875 = 0.625 > 0.5
    assert merge_close([(1.5, 2.0), (0.0, 1.0)], 0.5) == [(0.0, 2.0)]
    assert merge_close([(0.0, 0.875), (1.5, 2.0)], 0.5) == [(0.0, 0.875), (1.5, 2.0)]


def test_touching_segments_do_not_overlap() -> None:
    # user [0, 1) and model [1, 2): the overlap would be [1, 1], empty
    assert stop_intervals([(0.0, 1.0)], [(1.0, 2.0)]) == []


def test_the_shorter_of_two_overlaps_ending_on_one_millisecond_is_kept() -> None:
    # user 1.0-1.4996 and 1.4997-1.5004, model 1.4993-3.0: overlaps 1.4993-1.4996 (0.3 ms)
    # and 1.4997-1.5004 (0.7 ms) both end on millisecond round(1499.6) = round(1500.4) =
    # 1500, so only the shorter, the first, is kept: [round(1.4993, 3), round(1.4996, 3)]
    user = [(1.0, 1.4996), (1.4997, 1.5004)]
    model = [(1.4993, 3.0)]
    assert stop_intervals(user, model) == [[1.499, 1.5]]


def test_a_model_start_at_a_user_end_is_not_a_response() -> None:
    # the official rule takes the first model start strictly after the user end: 3.0
    assert response_intervals([(0.0, 1.0)], [(1.0, 2.0), (3.0, 4.0)]) == [[1.0, 3.0]]


def test_model_starts_on_one_millisecond_keep_the_later_user_end() -> None:
    # model starts 1.4996 and 1.5004 both round to millisecond 1500. User end 1.0 is
    # followed first by 1.4996, user end 1.5 by 1.5004; one entry per millisecond, the one
    # with the later user end: [1.5, round(1.5004, 3)] = [1.5, 1.5]
    user = [(0.5, 1.0), (1.1, 1.5)]
    model = [(1.4996, 1.4998), (1.5004, 2.0)]
    assert response_intervals(user, model) == [[1.5, 1.5]]


def test_the_record_is_the_two_lists_by_their_official_names() -> None:
    timing = OfficialTiming([[2.0, 4.0]], [[8.0, 9.0]])
    assert timing.report_dict() == {"latency_stop_list": [[2.0, 4.0]],
                               "latency_resp_list": [[8.0, 9.0]]}


def test_of_two_equally_short_overlaps_on_one_millisecond_the_first_is_kept() -> None:
    # Times in 1/65536 s, exact in binary: both overlaps last 20/65536 s and end on
    # millisecond 1500 (1499.51... and 1499.83... both round to 1500). "Shortest" is strict, so
    # the first stays: [round(1.499206..., 3), round(1.499511..., 3)] = [1.499, 1.5]
    # (the second would be [1.5, 1.5]).
    s1, e1 = 98252 / 65536, 98272 / 65536
    s2, e2 = 98273 / 65536, 98293 / 65536
    assert e1 - s1 == e2 - s2
    assert stop_intervals([(1.0, e1), (s2, e2)], [(s1, 3.0)]) == [[1.499, 1.5]]
