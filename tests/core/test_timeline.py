"""core.timeline against a brute-force oracle written here, and against the project's
older interval code that the families will move onto it.

The oracle works on a small integer grid: a set of spans is a boolean mask ``m`` with
``m[t]`` true when some span holds the microsecond ``[t, t + 1)``. Union, intersection,
difference, overlap, coverage and IoU are then counts and runs of masks, and pairwise
overlap is a double loop: nothing shared with the vectorised code under test.
"""

from __future__ import annotations

import re
import time
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speecheval.core.timebase import to_us
from speecheval.core.timeline import Span, Spans, pair_iou

GRID = 40
LABELS = ("a", "b", None)


@st.composite
def span_lists(draw: st.DrawFn, max_size: int = 8) -> list[Span]:
    size = draw(st.integers(0, max_size))
    spans = []
    for _ in range(size):
        start = draw(st.integers(0, GRID))
        end = draw(st.integers(start, GRID))
        spans.append(Span(start, end, draw(st.sampled_from(LABELS)), draw(st.booleans())))
    return spans


def mask(spans: list[Span]) -> np.ndarray:
    m = np.zeros(GRID, dtype=bool)
    for s in spans:
        m[s.start_us:s.end_us] = True
    return m


def runs(m: np.ndarray) -> list[tuple[int, int]]:
    """Maximal runs of True as (start, end)."""
    out, start = [], None
    for t in range(GRID + 1):
        on = t < GRID and bool(m[t])
        if on and start is None:
            start = t
        elif not on and start is not None:
            out.append((start, t))
            start = None
    return out


@settings(max_examples=300, deadline=None)
@given(span_lists(), span_lists())
def test_set_operations_match_masks(first: list[Span], second: list[Span]) -> None:
    a, b = Spans.from_spans(first), Spans.from_spans(second)
    ma, mb = mask(first), mask(second)
    assert a.union().to_tuples() == runs(ma)
    assert a.intersection(b).to_tuples() == runs(ma & mb)
    assert a.difference(b).to_tuples() == runs(ma & ~mb)
    assert a.covered_us() == int(ma.sum())
    assert a.overlap_us(b) == int((ma & mb).sum())
    joint = int((ma | mb).sum())
    assert a.iou(b) == (None if joint == 0 else int((ma & mb).sum()) / joint)
    assert a.covers(np.arange(-2, GRID + 2)).tolist() == [
        bool(0 <= t < GRID and ma[t]) for t in range(-2, GRID + 2)]


@settings(max_examples=200, deadline=None)
@given(span_lists(), st.integers(0, GRID), st.integers(0, GRID))
def test_coverage_and_clipping_match_masks(spans: list[Span], lo: int, width: int) -> None:
    hi = min(GRID, lo + width)
    window = Span(lo, hi)
    m = mask(spans)
    expected = None if hi == lo else int(m[lo:hi].sum()) / (hi - lo)
    assert Spans.from_spans(spans).coverage(window) == expected
    clipped = Spans.from_spans(spans).clipped(window)
    assert clipped.to_tuples(labels=True) == [
        (s.label, max(s.start_us, lo), min(s.end_us, hi)) for s in spans
        if min(s.end_us, hi) > max(s.start_us, lo)]


@settings(max_examples=200, deadline=None)
@given(span_lists())
def test_union_by_label_merges_each_label_apart(spans: list[Span]) -> None:
    merged = Spans.from_spans(spans).union(by_label=True)
    expected = []
    for label in sorted({s.label for s in spans}, key=lambda x: (x is not None, x or "")):
        expected += [(label, lo, hi) for lo, hi in runs(mask([s for s in spans
                                                              if s.label == label]))]
    got = merged.to_tuples(labels=True)
    assert sorted(got, key=lambda x: (x[0] is not None, x[0] or "", x[1])) == expected


def greedy_merge(spans: list[Span], touching: bool) -> list[tuple[int, int, bool]]:
    """Textbook merge over spans sorted by start; a block is open when the span that
    gives its end is."""
    blocks: list[list[int | bool]] = []
    for s in sorted((s for s in spans if s.end_us > s.start_us), key=lambda s: s.start_us):
        joins = blocks and (s.start_us <= blocks[-1][1] if touching
                            else s.start_us < blocks[-1][1])
        if joins and s.end_us > blocks[-1][1]:
            blocks[-1][1], blocks[-1][2] = s.end_us, s.open_at_end
        elif joins and s.end_us == blocks[-1][1]:
            blocks[-1][2] = bool(blocks[-1][2]) or s.open_at_end
        elif not joins:
            blocks.append([s.start_us, s.end_us, s.open_at_end])
    return [(int(a), int(b), bool(c)) for a, b, c in blocks]


@settings(max_examples=300, deadline=None)
@given(span_lists(), st.booleans())
def test_union_keeps_touching_apart_on_request_and_open_ends(spans: list[Span],
                                                             touching: bool) -> None:
    merged = Spans.from_spans(spans).union(join_touching=touching)
    got = list(zip(merged.starts.tolist(), merged.ends.tolist(),
                   merged.open_at_end.tolist(), strict=True))
    assert got == greedy_merge(spans, touching)


@settings(max_examples=300, deadline=None)
@given(span_lists(12), st.booleans(), st.booleans())
def test_union_by_label_is_the_greedy_merge_of_each_label_in_any_input_order(
        spans: list[Span], touching: bool, by_start: bool) -> None:
    # Spans read from a file usually come sorted by start (the merge then orders them by
    # label alone); the other order goes through a sort by start first. Either way each
    # label's blocks, open flags included, are the textbook merge of that label's spans.
    given = (sorted(spans, key=lambda s: s.start_us) if by_start
             else sorted(spans, key=lambda s: -s.start_us))
    merged = Spans.from_spans(given).union(by_label=True, join_touching=touching)
    got = list(zip(merged.labels, merged.starts.tolist(), merged.ends.tolist(),
                   merged.open_at_end.tolist(), strict=True))
    expected = [(label, *block)
                for label in sorted({s.label for s in spans}, key=lambda x: (x is not None, x))
                for block in greedy_merge([s for s in spans if s.label == label], touching)]
    assert got == expected


@settings(max_examples=300, deadline=None)
@given(span_lists(10), span_lists(10))
def test_pairwise_overlaps_match_double_loop(first: list[Span], second: list[Span]) -> None:
    pairs = Spans.from_spans(first).pairwise_overlaps(Spans.from_spans(second))
    expected = [(i, j, a.overlap_us(b)) for i, a in enumerate(first)
                for j, b in enumerate(second) if a.overlap_us(b) > 0]
    got = list(zip(pairs.first.tolist(), pairs.second.tolist(), pairs.overlap_us.tolist(),
                   strict=True))
    assert got == expected
    assert pairs.total_us == sum(x[2] for x in expected)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, GRID), st.integers(0, 10), st.integers(0, GRID),
                          st.integers(0, 10)), max_size=10))
def test_pair_iou_equals_span_iou(rows: list[tuple[int, int, int, int]]) -> None:
    first = [Span(s, s + d) for s, d, _, _ in rows]
    second = [Span(s, s + d) for _, _, s, d in rows]
    expected = []
    for a, b in zip(first, second, strict=True):
        cells_a, cells_b = set(range(a.start_us, a.end_us)), set(range(b.start_us, b.end_us))
        shared, joint = len(cells_a & cells_b), len(cells_a | cells_b)
        expected.append(float(a.start_us == b.start_us) if joint == 0 else shared / joint)
    got = pair_iou(Spans.from_spans(first), Spans.from_spans(second)).tolist()
    assert got == expected == [a.iou(b) for a, b in zip(first, second, strict=True)]


# --- agreement with the interval code the families use today -------------------------


@settings(max_examples=150, deadline=None)
@given(span_lists(), span_lists())
def test_agrees_with_existing_family_helpers(first: list[Span], second: list[Span]) -> None:
    a, b = Spans.from_spans(first), Spans.from_spans(second)
    # the n x m overlap that session metrics used before they moved onto Spans sums pairs;
    # on disjoint inputs (a detector's segments) that is the set overlap they use now
    def session_overlap(x: list[tuple[int, int]], y: tuple[tuple[int, int], ...]) -> int:
        if not x or not y:
            return 0
        p, q = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
        lo = np.maximum(p[:, None, 0], q[None, :, 0])
        hi = np.minimum(p[:, None, 1], q[None, :, 1])
        return int(np.clip(hi - lo, 0, None).sum())

    da, db = a.union(), b.union()
    assert session_overlap(da.to_tuples(), tuple(db.to_tuples())) == da.overlap_us(db)
    assert session_overlap(a.to_tuples(), tuple(b.to_tuples())) == (
        a.pairwise_overlaps(b).total_us)


# --- the span type -------------------------------------------------------------------


def test_span_rounds_seconds_like_the_time_base() -> None:
    s = Span.from_seconds(0.0000015, 6.32000000000005, label="x", open_at_end=True)
    # half to even: 1.5 us -> 2 us; float noise on 6.32 s disappears
    assert (s.start_us, s.end_us, s.end_s, s.open_at_end) == (2, 6_320_000, 6.32, True)
    assert Span.from_seconds(0.0000025, 1.0).start_us == 2 == to_us(0.0000025)
    assert Spans.from_seconds([0.0000025, 6.32000000000005], [1.0, 7.0]).starts.tolist() == [
        2, 6_320_000]


def test_span_refuses_backwards_float_and_bool_times() -> None:
    with pytest.raises(ValueError, match=r"ends before it starts: \[5, 3\)"):
        Span(5, 3)
    with pytest.raises(TypeError, match="integer number of microseconds"):
        Span(1.5, 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Span(True, 3)
    with pytest.raises(ValueError, match=r"span 1 ends before it starts: \[7, 6\)"):
        Spans([0, 7], [1, 6])
    with pytest.raises(TypeError, match="from_seconds"):
        Spans([0.5], [1.0])
    with pytest.raises(ValueError, match="not finite"):
        Spans.from_seconds([float("nan")], [1.0])


def test_span_accepts_numpy_integers_and_is_frozen() -> None:
    s = Span(np.int64(3), np.int32(9))
    assert type(s.start_us) is int and s == Span(3, 9)
    with pytest.raises(AttributeError):
        s.start_us = 4  # type: ignore[misc]
    spans = Spans([1, 2], [3, 4])
    with pytest.raises(ValueError, match="read-only"):
        spans.starts[0] = 0


def test_spans_round_trip_labels_flags_and_order() -> None:
    items = [Span(5, 9, "b"), Span(0, 2, None, True), Span(1, 4, "a")]
    spans = Spans.from_spans(items)
    assert list(spans) == items and len(spans) == 3
    assert spans.label_names == ("a", "b") and spans.labels == ("b", None, "a")
    assert spans.sorted().to_tuples(labels=True) == [(None, 0, 2), ("a", 1, 4), ("b", 5, 9)]
    assert list(spans.select("a")) == [Span(1, 4, "a")]
    assert list(spans.select(None)) == [Span(0, 2, None, True)]
    assert len(spans.select("zzz")) == 0
    assert list(spans.by_label()) == [None, "a", "b"]
    assert spans == Spans.from_spans(items) and spans != Spans.from_spans(items[:2])
    assert Spans.empty().union() == Spans.empty() and Spans.empty().iou(Spans.empty()) is None


def test_union_open_at_end_follows_the_span_that_ends_the_block() -> None:
    # (0, 10) is open, but (5, 12) ends the merged block later: the block is closed
    assert Spans([0, 5], [10, 12], open_at_end=[True, False]).union().open_at_end.tolist() == [
        False]
    assert Spans([0, 5], [10, 10], open_at_end=[False, True]).union().open_at_end.tolist() == [
        True]


def test_a_million_spans_are_fast() -> None:
    """The DER-at-scale work runs these on a million turns; each call stays in seconds.

    The bound is loose (a shared 2-core machine); a per-span Python loop would take
    minutes, and an n x m overlap matrix of 10^12 entries could not be allocated at all.
    """
    rng = np.random.default_rng(0)
    n = 1_000_000

    def sparse() -> Spans:  # about one partner per span, as in a real recording
        starts = rng.integers(0, 4_000_000_000_000, n)
        return Spans(starts, starts + rng.integers(0, 2_000_000, n))

    a, b = sparse(), sparse()
    began = time.perf_counter()
    merged = a.union()
    shared = a.overlap_us(b)
    pairs = a.pairwise_overlaps(b)
    inside = a.covers(b.starts)
    elapsed = time.perf_counter() - began
    assert len(merged) < n and shared > 0 and len(pairs) > 0 and inside.any()
    assert elapsed < 30, f"1M-span interval algebra took {elapsed:.1f} s"


# --- exact messages and limits ------------------------------------------------------


def raises_exactly(kind: type[Exception], message: str) -> pytest.RaisesExc[Exception]:
    """``pytest.raises`` matching the whole message, not a part of it."""
    return pytest.raises(kind, match=f"^{re.escape(message)}$")


def test_error_messages_name_the_value_and_the_problem_exactly() -> None:
    with raises_exactly(TypeError, "start_us must be an integer number of microseconds, "
                                   "got 1.5"):
        Span(1.5, 3)  # type: ignore[arg-type]
    with raises_exactly(TypeError, "end_us must be an integer number of microseconds, "
                                   "got True"):
        Span(1, True)
    with raises_exactly(ValueError, "span ends before it starts: [5, 3) us"):
        Span(5, 3)
    with raises_exactly(TypeError, "label must be a string or None, got 7"):
        Span(1, 3, 7)  # type: ignore[arg-type]
    with raises_exactly(ValueError, "1 labels for 2 spans"):
        Spans([0, 1], [1, 2], labels=["a"])
    with raises_exactly(TypeError, "labels must be strings or None"):
        Spans([0, 1], [1, 2], labels=["a", 3])  # type: ignore[list-item]
    for starts, ends, name in (([0.5], [1], "starts"), ([0], [1.0], "ends"),
                               ([[0]], [1], "starts")):
        with raises_exactly(TypeError, f"{name} must be a 1-D sequence of integer "
                                       "microseconds (use Spans.from_seconds for seconds)"):
            Spans(starts, ends)
    with raises_exactly(ValueError, "2 starts but 1 ends"):
        Spans([0, 1], [1])
    with raises_exactly(ValueError, "span 1 ends before it starts: [7, 6) us"):
        Spans([0, 7, 9], [1, 6, 8])
    with raises_exactly(ValueError, "3 open_at_end flags for 2 spans"):
        Spans([0, 1], [1, 2], open_at_end=[True, False, True])
    with raises_exactly(ValueError, "pair_iou needs equal lengths, got 2 and 1"):
        pair_iou(Spans([0, 1], [1, 2]), Spans([0], [1]))


def test_repr_shows_the_first_three_spans_and_the_count() -> None:
    assert repr(Spans([0, 5], [2, 9])) == "Spans([0, 2), [5, 9))"
    assert repr(Spans([0, 1, 2], [1, 2, 3])) == "Spans([0, 1), [1, 2), [2, 3))"
    assert repr(Spans([0, 1, 2, 3], [1, 2, 3, 4])) == "Spans([0, 1), [1, 2), [2, 3), ... (4 spans))"
    assert repr(Spans.empty()) == "Spans()"


def test_union_refuses_exactly_when_shifted_times_could_overflow() -> None:
    # The guard: (largest group + 1) * width > int64 max // 2 = 2**62 - 1, where
    # width = last end - first start + 1 and the groups are 0 without labels,
    # label index + 1 by label.
    limit = 2**62 - 1
    # no labels: factor 1; width 2**62 - 1 is exactly the limit (allowed), one more is not
    assert Spans([0], [limit - 1]).union().to_tuples() == [(0, limit - 1)]
    with raises_exactly(OverflowError,
                        "too many labels over too long a time span to merge at once"):
        Spans([0], [limit]).union()
    # one label "a" (index 0, group 1): factor 2; 2 * (2**61 - 1) = 2**62 - 2 <= limit,
    # 2 * 2**61 = 2**62 > limit
    half = 2**61
    assert Spans([0, 10], [half - 2, 20], labels=["a", "a"]).union(
        by_label=True).to_tuples(labels=True) == [("a", 0, half - 2)]
    with pytest.raises(OverflowError):
        Spans([0], [half - 1], labels=["a"]).union(by_label=True)


def test_equal_only_when_starts_ends_flags_and_labels_all_agree() -> None:
    base = Spans([0, 10], [5, 20], labels=["a", None], open_at_end=[False, True])
    assert base == Spans([0, 10], [5, 20], labels=["a", None], open_at_end=[False, True])
    # each differs from base in exactly one column
    assert base != Spans([1, 10], [5, 20], labels=["a", None], open_at_end=[False, True])
    assert base != Spans([0, 10], [5, 21], labels=["a", None], open_at_end=[False, True])
    assert base != Spans([0, 10], [5, 20], labels=["a", None], open_at_end=[False, False])
    assert base != Spans([0, 10], [5, 20], labels=["b", None], open_at_end=[False, True])
    assert base != [(0, 5), (10, 20)]


def test_by_label_holds_each_labels_own_spans() -> None:
    spans = Spans([5, 0, 1, 7], [9, 2, 4, 8], labels=["b", None, "a", "b"])
    assert {label: part.to_tuples() for label, part in spans.by_label().items()} == {
        None: [(0, 2)], "a": [(1, 4)], "b": [(5, 9), (7, 8)]}


def test_from_seconds_keeps_flags_and_flattens_a_column() -> None:
    spans = Spans.from_seconds([0.0, 1.0], [0.5, 2.0], labels=["a", "b"],
                               open_at_end=[False, True])
    assert spans.open_at_end.tolist() == [False, True] and spans.labels == ("a", "b")
    # a (2, 1) column of seconds, as cut from a table, is read as two spans
    column = Spans.from_seconds(np.array([[0.0], [1.0]]), np.array([[0.5], [2.0]]))
    assert column.to_tuples() == [(0, 500_000), (1_000_000, 2_000_000)]


def test_clipping_keeps_open_at_end_only_where_the_own_end_survives() -> None:
    spans = Spans([0, 8, 1], [5, 12, 3], open_at_end=[True, True, False])
    clipped = spans.clipped(Span(2, 10))
    # (0, 5) open -> (2, 5): its own end is kept, still open;
    # (8, 12) open -> (8, 10): cut at the window, so where it stopped is not known: closed
    # (1, 3) closed -> (2, 3): stays closed
    assert clipped.to_tuples() == [(2, 5), (8, 10), (2, 3)]
    assert clipped.open_at_end.tolist() == [True, False, False]


def test_pair_iou_of_points_divides_by_nothing_and_warns_nothing() -> None:
    # [3, 3) with [3, 3): joint 0, same point -> 1; [3, 3) with [4, 4): joint 0 -> 0;
    # [0, 4) with [2, 6): shared 2, joint 4 + 4 - 2 = 6 -> 1/3; [0, 1) with [0, 1): 1/1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a 0/0 on the way would raise RuntimeWarning
        iou = pair_iou(Spans([3, 3, 0, 0], [3, 3, 4, 1]), Spans([3, 4, 2, 0], [3, 4, 6, 1]))
    assert iou.tolist() == [1.0, 0.0, 1 / 3, 1.0]


def test_span_from_seconds_keeps_the_label_and_is_closed_by_default() -> None:
    assert Span.from_seconds(0.5, 1.0, "agent") == Span(500_000, 1_000_000, "agent", False)
    assert Span.from_seconds(0.5, 1.0).open_at_end is False


def test_span_contains_its_start_and_not_its_end() -> None:
    # [2, 5): 2, 3, 4 are inside; 1 is before it and 5 is the first instant after it
    assert [Span(2, 5).contains(t) for t in (1, 2, 4, 5)] == [False, True, True, False]


def test_covers_answers_instants_in_the_order_given() -> None:
    # spans [0, 5) and [10, 20); the instants are not sorted, so they are sorted for the
    # search and the answers put back: 19 in, 0 in, 5 out (end), 10 in, 20 out (end), 3 in
    assert Spans([0, 10], [5, 20]).covers([19, 0, 5, 10, 20, 3]).tolist() == [
        True, True, False, True, False, True]


def test_column_types_are_int64_bounds_int32_labels_and_bool_flags() -> None:
    spans = Spans([0, 1], [2, 3], labels=["a", None], open_at_end=[1, 0])
    assert (spans.starts.dtype, spans.ends.dtype) == (np.int64, np.int64)
    # int32 label indices: 4 bytes a span, what a million DER turns are sized for
    assert spans.label_ids.dtype == np.int32 and spans.label_ids.tolist() == [0, -1]
    assert spans.open_at_end.dtype == np.bool_
    assert Spans([0], [1]).label_ids.dtype == np.int32


def test_union_by_label_keeps_labels_apart_at_any_offset() -> None:
    # the groups are shifted apart by width = last end - first start + 1 = 0 - (-10) + 1
    # = 11: a's [-10, -5) and b's [-10, 0) must not merge, whatever the sign of the times
    spans = Spans([-10, -10, -3], [-5, 0, -1], labels=["a", "b", "a"])
    assert spans.union(by_label=True).to_tuples(labels=True) == [
        ("a", -10, -5), ("a", -3, -1), ("b", -10, 0)]
    # far from zero: width (far + 30) - far + 1 = 31, nowhere near the overflow guard, and
    # the shifted times (time - first start + group * width) stay below 31 * 3 = 93; with
    # far = 2**62 - 31 a shift that added the first start would carry label b's times
    # (far + 20 + 2 * 31 + far = 2**63 + 20) past the int64 range
    far = 2**62 - 31
    assert Spans([far, far + 20], [far + 10, far + 30], labels=["a", "b"]).union(
        by_label=True).to_tuples(labels=True) == [("a", far, far + 10), ("b", far + 20, far + 30)]


def test_union_without_by_label_drops_the_labels() -> None:
    merged = Spans([0, 5, 6], [3, 8, 7], labels=["a", "b", None]).union()
    assert merged.to_tuples(labels=True) == [(None, 0, 3), (None, 5, 8)]
    assert merged.label_names == () and merged.label_ids.tolist() == [-1, -1]
    assert merged.label_ids.dtype == np.int32  # as in every Spans


def test_every_result_has_the_same_column_types() -> None:
    # int32 input bounds are widened to int64; a scalar is one span
    narrow = Spans(np.array([0, 4], dtype=np.int32), np.array([3, 9], dtype=np.int32))
    assert (narrow.starts.dtype, narrow.ends.dtype) == (np.int64, np.int64)
    assert Spans(2, 5) == Spans([2], [5])
    assert Spans(2, 5, open_at_end=True).open_at_end.tolist() == [True]
    a, b = Spans([0, 10], [5, 20]), Spans([3], [12])
    for result in (a.intersection(b), a.difference(b), a.union(), Spans.empty(),
                   a.clipped(Span(1, 15))):
        assert (result.starts.dtype, result.ends.dtype, result.label_ids.dtype,
                result.open_at_end.dtype) == (np.int64, np.int64, np.int32, np.bool_)
