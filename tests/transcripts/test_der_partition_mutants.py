"""Cases of the DER event sweep that no other test reached, found by mutation testing
(docs/testing.md): each assertion fails on a one-token change of
``transcripts/diarization/partition.py`` that the rest of the suite let through."""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.core.timeline import Spans
from speecheval.transcripts.diarization import partition as partition_module
from speecheval.transcripts.diarization.metrics import region_totals
from speecheval.transcripts.diarization.partition import (
    Region,
    _narrowed,
    partition,
    ranked_bounds,
    starting_inside,
)
from speecheval.transcripts.diarization.turns import speaker_turns


def _turns(starts: list[int], ends: list[int], names: list[str]) -> Spans:
    """Merged turns, as the sweep takes them."""
    return speaker_turns(Spans(starts, ends, labels=names)).merged


def test_cooccurrence_is_exact_int64_seconds_of_each_pair() -> None:
    # reference A [0, 4), B [2, 6); system X [1, 3), Y [3, 8); scored over [0, 8):
    #   A with X: [1, 3) = 2    A with Y: [3, 4) = 1
    #   B with X: [2, 3) = 1    B with Y: [3, 6) = 3
    part = partition(_turns([0, 2], [4, 6], ["A", "B"]), _turns([1, 3], [3, 8], ["X", "Y"]))
    together = part.cooccurrence(part.region(np.array([[0, 8]])).prefix)
    assert together.tolist() == [[2, 1], [1, 3]]
    assert together.dtype == np.int64  # whole microseconds, not floats


def test_a_file_without_turns_has_no_interval_and_an_empty_matrix() -> None:
    # nobody talks on either side: no edge, so no elementary interval (not one empty
    # one), a region of one prefix value 0 (whole µs), and no overlapping pair of turns:
    # a 0 x 0 co-occurrence matrix
    part = partition(_turns([], [], []), _turns([], [], []))
    assert part.n_ref.tolist() == []
    assert part.n_hyp.tolist() == []
    region = part.region(np.array([[0, 8]]))
    assert region.prefix.tolist() == [0]
    assert region.prefix.dtype == np.int64
    assert region.total_us == 8
    together = part.cooccurrence(region.prefix)
    assert together.shape == (0, 0)
    assert together.dtype == np.int64


def test_speakers_both_sides_hear_are_kept_in_8_bits_when_few() -> None:
    # reference A [0, 4), B [2, 6); system X [1, 3): min(R, H) per interval of the edges
    # 0 1 2 3 4 6 is min(1, 0), min(1, 1), min(2, 1), min(2, 0), min(1, 0) = 0 1 1 0 0,
    # held as int8 for every region (the docstring's promise: few speakers, 8 bits)
    part = partition(_turns([0, 2], [4, 6], ["A", "B"]), _turns([1], [3], ["X"]))
    assert part.n_ref.tolist() == [1, 1, 2, 2, 1]
    assert part.n_ref.dtype == np.int8  # 2 speakers: counts in 8 bits
    both = part.both()
    assert both.tolist() == [0, 1, 1, 0, 0]
    assert both.dtype == np.int8


def test_128_speakers_talking_at_once_on_both_sides_do_not_wrap_around() -> None:
    # 128 reference and 128 system speakers all talk over [0, 10): min(R, H) = 128, which
    # int8 (at most 127) cannot hold; it stays 128, and the region's matched speaker time
    # is 128 * 10 = 1280 µs
    names = [f"s{k}" for k in range(128)]
    side = _turns([0] * 128, [10] * 128, names)
    part = partition(side, side)
    assert part.both().tolist() == [128]
    totals = region_totals(part, part.region(np.array([[0, 10]])))
    assert totals.both_us == 1280


def test_speakers_both_sides_hear_fit_8_bits_when_one_side_has_few_speakers() -> None:
    # 128 reference speakers over [0, 10) (their counts need 16 bits) and one system
    # speaker X over [0, 5): min(R, H) = min(128, 1) = 1 on [0, 5), min(128, 0) = 0 on
    # [5, 10), at most 1 speaker on the system side, so it is held in 8 bits
    names = [f"s{k}" for k in range(128)]
    part = partition(_turns([0] * 128, [10] * 128, names), _turns([0], [5], ["X"]))
    assert part.n_ref.dtype == np.int16
    both = part.both()
    assert both.tolist() == [1, 0]
    assert both.dtype == np.int8


def test_overlapping_pairs_are_listed_once_for_every_region() -> None:
    # the pairs of overlapping turns are computed once and kept (each region of a file
    # reads them again): the second call gives back the very same parts
    part = partition(_turns([0, 2], [4, 6], ["A", "B"]), _turns([1, 3], [3, 8], ["X", "Y"]))
    first = part.overlaps()
    assert part.overlaps() is first


@pytest.mark.parametrize(("n_ref", "n_hyp", "kept"), [(8, 16, np.int8), (3, 43, np.int16),
                                                     (128, 256, np.int16),
                                                     (182, 181, np.int32)])
def test_pair_codes_are_kept_in_the_smallest_type_that_holds_them(n_ref: int, n_hyp: int,
                                                                  kept: type) -> None:
    # every speaker talks over [0, 10): each (reference, system) pair co-occurs 10 µs; the
    # pair codes run to n_ref * n_hyp - 1: 8 * 16 - 1 = 127 fits int8, 3 * 43 - 1 = 128
    # needs int16, 128 * 256 - 1 = 32767 still fits int16, 182 * 181 - 1 = 32941 needs int32
    ref = _turns([0] * n_ref, [10] * n_ref, [f"r{k}" for k in range(n_ref)])
    hyp = _turns([0] * n_hyp, [10] * n_hyp, [f"h{k}" for k in range(n_hyp)])
    part = partition(ref, hyp)
    assert {codes.dtype for _, _, codes in part.overlaps()} == {np.dtype(kept)}
    together = part.cooccurrence(part.region(np.array([[0, 10]])).prefix)
    assert together.tolist() == [[10] * n_hyp] * n_ref


def test_32768_speakers_talking_at_once_are_counted_in_32_bits() -> None:
    # 2**15 = 32768 reference speakers over [0, 10): the count 32768 is one more than
    # int16 holds (32767), so the counts are int32 and read 32768 on both intervals
    # (edges 0, 5, 10: the system speaker X stops at 5)
    n = 1 << 15
    ref = _turns([0] * n, [10] * n, [f"s{k}" for k in range(n)])
    part = partition(ref, _turns([0], [5], ["X"]))
    counts = part.n_ref
    assert counts.tolist() == [32768, 32768]
    assert counts.dtype == np.int32


def test_ranked_bounds_are_whole_microseconds_and_keep_a_lone_repeated_time() -> None:
    # int64 edges stay int64; edges that are all one time (5, 5) give that one time,
    # not nothing, and both lie at position 0
    bounds, _ = ranked_bounds([np.array([5, 1]), np.array([3])])
    assert bounds.dtype == np.int64
    bounds, (positions,) = ranked_bounds([np.array([5, 5])])
    assert (bounds.tolist(), positions.tolist()) == ([5], [0, 0])
    assert positions.dtype == np.int32


def test_ranked_bounds_across_chunks_count_a_time_repeated_over_a_chunk_edge_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # chunks of 2 sorted edges: 1 1 | 1 3 | 3 7 | 9; the 1 that opens the second chunk and
    # the 3 that opens the third repeat the last time of the chunk before, so they are not
    # new bounds: the bounds are 1 3 7 9 and the edges lie at 0 0 0 1 1 2 3
    monkeypatch.setattr(partition_module, "_CHUNK", 2)
    bounds, (first, second) = ranked_bounds([np.array([3, 1, 9, 1]), np.array([7, 1, 3])])
    assert bounds.tolist() == [1, 3, 7, 9]
    assert (first.tolist(), second.tolist()) == ([1, 0, 3, 0], [2, 0, 1])


def test_ranked_bounds_of_no_edges_are_empty() -> None:
    bounds, (first, second) = ranked_bounds([np.zeros(0, dtype=np.int64)] * 2)
    assert (bounds.size, first.size, second.size) == (0, 0, 0)


def test_region_weights_of_any_slice_of_intervals() -> None:
    # prefix sums 0 5 8 10: weights 5 3 2; the last interval alone (a slice counted from
    # the end) weighs 2, the first two 5 and 3, a slice past the end stops at the last
    region = Region(np.array([0, 5, 8, 10]), 20)
    assert region.weights(slice(-1, None)).tolist() == [2]
    assert region.weights(slice(0, 2)).tolist() == [5, 3]
    assert region.weights(slice(1, 9)).tolist() == [3, 2]


def test_starting_inside_lists_turns_as_int32_positions() -> None:
    # starts 4 1 2 in ranges [0, 3) and [2, 5): range 0 holds the turns starting at 1 and 2
    # (k = 1, 2), range 1 those at 2 and 4 (k = 2, 0); fewer than 2**31 turns, so the turn
    # positions are int32 (half the memory of what is gathered from them)
    [(rows, ks)] = starting_inside(np.array([4, 1, 2]), np.array([0, 2]), np.array([3, 5]),
                                   strictly=False)
    assert (rows.tolist(), ks.tolist()) == ([0, 0, 1, 1], [1, 2, 2, 0])
    assert ks.dtype == np.int32


def test_narrowed_order_is_int32_in_half_of_its_int64_buffer() -> None:
    # five int64 indices (40 bytes) become five int32 ones in the first 20 bytes, and the
    # buffer is shrunk to (5 + 1) // 2 = 3 int64s (24 bytes): the other half is given back
    narrowed = _narrowed(np.array([4, 0, 3, 1, 2]))
    assert narrowed.tolist() == [4, 0, 3, 1, 2]
    assert narrowed.dtype == np.int32
    assert narrowed.base is not None and narrowed.base.nbytes == 24
    # four of them: (4 + 1) // 2 = 2 int64s, 16 bytes, just the four int32s
    even = _narrowed(np.array([1, 3, 0, 2]))
    assert even.tolist() == [1, 3, 0, 2]
    assert even.base is not None and even.base.nbytes == 16
