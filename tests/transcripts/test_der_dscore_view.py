"""dscore's view of a file (``--compat dscore``): the edge cases of its trimming, its
3-decimal files and its framed JER, each worked out from dscore's definition
(nryant/dscore ``score.py``, summarised in :mod:`speecheval.transcripts.diarization.dscore`).
"""

from __future__ import annotations

import pytest

from speecheval.core.errors import InputError
from speecheval.transcripts.diarization.dscore import (
    DscoreTurn,
    framed_jer,
    md_eval_uem_us,
    trimmed_turns,
)
from speecheval.transcripts.diarization.result import JerComponents
from speecheval.transcripts.formats.rttm import RttmTurn


def turn(start: float, end: float, speaker: str = "A") -> RttmTurn:
    return RttmTurn.from_seconds("f", start, end - start, speaker)


def spans(turns: list[DscoreTurn]) -> list[tuple[str, float, float]]:
    return [(t.speaker, t.onset, t.offset) for t in turns]


def test_a_turn_touching_the_uem_only_at_a_point_is_dropped() -> None:
    # A [2, 3] against regions [0, 2] and [5, 6]: against [0, 2] the cut piece is
    # [max(2, 0), min(3, 2)] = [2, 2], empty; against [5, 6] it is [5, 3], empty.
    # dscore keeps a piece only when offset > onset, so nothing is left.
    assert trimmed_turns([turn(2, 3)], [(0.0, 2.0), (5.0, 6.0)]) == []


def test_without_a_merge_the_turns_stay_as_given_duplicates_included() -> None:
    # A [3, 4], A [1, 2], A [1, 2]: no two distinct spans strictly overlap, so dscore's
    # merge_turns changes nothing and the list is kept in its order, the duplicate too.
    got = trimmed_turns([turn(3, 4), turn(1, 2), turn(1, 2)], [(0.0, 5.0)])
    assert spans(got) == [("A", 3.0, 4.0), ("A", 1.0, 2.0), ("A", 1.0, 2.0)]


def test_one_merge_replaces_the_speakers_turns_by_the_sorted_merged_ones() -> None:
    # A [3, 4], A [1, 2.5], A [2, 2.2]: [1, 2.5] and [2, 2.2] strictly overlap, so the
    # merged, sorted list [1, 2.5], [3, 4] replaces the three turns.
    got = trimmed_turns([turn(3, 4), turn(1, 2.5), turn(2, 2.2)], [(0.0, 5.0)])
    assert spans(got) == [("A", 1.0, 2.5), ("A", 3.0, 4.0)]


def test_three_decimals_are_rounded_once_as_dscore_writes_them() -> None:
    # dscore writes '%.3f' % round(x, 3). 2.00145 is stored as 2.0014500000000001733..,
    # so round(x, 3) = 2.001 and '2.001' is read back: 2_001_000 us. (Rounding to 4
    # decimals first would give 2.0015 and then '2.002'.)
    assert md_eval_uem_us([(2.00145, 6.0), (0.0, 2.00145)]) == [(2_001_000, 6_000_000),
                                                                (0, 2_001_000)]
    # A turn: onset 2.00145 -> 2_001_000 us; duration 5.0 - 2.00145 = 2.99855 ->
    # round(d, 3) = 2.999 -> end 2_001_000 + 2_999_000 (4 decimals first: '2.998').
    assert DscoreTurn("A", 2.00145, 5.0).md_eval_us() == (2_001_000, 5_000_000)
    # Onset 0, duration 2.00145 -> '2.001': end 2_001_000 us.
    assert DscoreTurn("A", 0.0, 2.00145).md_eval_us() == (0, 2_001_000)


def test_framed_jer_without_reference_speakers_adds_nothing() -> None:
    assert framed_jer([], [DscoreTurn("X", 0.0, 0.02)], [(0.0, 0.05)], "f") == JerComponents(0.0, 0)


def test_framed_jer_without_system_speakers_is_one_per_reference_speaker() -> None:
    ref = [DscoreTurn("A", 0.0, 0.02), DscoreTurn("B", 0.02, 0.04)]
    assert framed_jer(ref, [], [(0.0, 0.05)], "f") == JerComponents(2.0, 2)


def test_framed_jer_of_a_single_identical_frame_is_zero() -> None:
    # UEM [0, 0.05] is frames 0..4 at t = 0, 0.01, ..., 0.04. A and X [0, 0.01) both hold
    # frame 0 only: intersection 1, union 1, error 1 - 1/1 = 0.
    one = framed_jer([DscoreTurn("A", 0.0, 0.01)], [DscoreTurn("X", 0.0, 0.01)],
                     [(0.0, 0.05)], "f")
    assert one == JerComponents(0.0, 1)


def test_framed_jer_stops_like_dscore_on_speakers_without_frames() -> None:
    # Both turns lie after the UEM [0, 0.05]: the speakers exist but hold no frame, so
    # the union is 0 frames and dscore divides 0 by 0.
    with pytest.raises(InputError) as caught:
        framed_jer([DscoreTurn("A", 0.1, 0.2)], [DscoreTurn("X", 0.1, 0.2)], [(0.0, 0.05)], "f")
    assert str(caught.value) == (
        "file 'f': a reference and a system speaker both have no 10 ms frame inside the UEM, "
        "where dscore's JER is 0/0 (dscore stops here)")
