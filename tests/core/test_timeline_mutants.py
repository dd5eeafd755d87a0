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


def test_union_by_label_orders_groups_by_label_past_the_8_and_16_bit_codes() -> None:
    # The merge sorts label codes in the smallest integer type that holds them; with
    # 129 labels (codes up to 128, one past int8) and 32769 labels (up to 32768, one past
    # int16) a code that wrapped around would sort its label first. One span per label,
    # [k, k + 1) for label k (names sort as their numbers): the union keeps every span
    # and lists them by label, so the last label comes last.
    for n in (129, 32769):
        names = [f"s{k:05d}" for k in range(n)]
        merged = Spans(list(range(n)), list(range(1, n + 1)), labels=names).union(
            by_label=True)
        assert merged.to_tuples(labels=True)[-1] == (names[-1], n - 1, n)
        assert merged.starts.tolist() == list(range(n))


def test_union_by_label_keeps_each_label_in_start_order_past_a_small_sort() -> None:
    # 80 spans sorted by start, labels alternating a, b: span i is [10 i, 10 i + 5). The
    # merge sorts the label codes alone and must keep each label's spans in start order
    # (a stable sort; numpy's default sort of more than 16 codes is not stable). Label a
    # holds the even i, [20 k, 20 k + 5) for k = 0..39, label b the odd ones,
    # [20 k + 10, 20 k + 15): gaps of 15 us inside each label, so nothing merges.
    n = 80
    spans = Spans([10 * i for i in range(n)], [10 * i + 5 for i in range(n)],
                  labels=["a" if i % 2 == 0 else "b" for i in range(n)])
    expected = ([("a", 20 * k, 20 * k + 5) for k in range(40)]
                + [("b", 20 * k + 10, 20 * k + 15) for k in range(40)])
    assert spans.union(by_label=True).to_tuples(labels=True) == expected


def test_union_of_times_near_the_int64_limit_shifts_them_down() -> None:
    # The merge subtracts the earliest start before comparing: with L = 2**62 - 5 the
    # shifted times are 0, 5, 10, 15, and [L, L + 5), [L + 10, L + 15) stay apart. Adding
    # L instead would take L + 10 + L = 2**63 past the int64 maximum (2**63 - 1).
    low = 2**62 - 5
    merged = Spans([low, low + 10], [low + 5, low + 15]).union()
    assert merged.to_tuples() == [(low, low + 5), (low + 10, low + 15)]
