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
