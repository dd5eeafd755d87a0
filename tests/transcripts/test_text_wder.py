"""WDER (word-level diarization error rate): hand-worked cases."""

from __future__ import annotations

import pytest

from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.text.wder import WderResult, wder, wder_counts


def test_turn_boundary_one_word_early() -> None:
    # reference A "a b c" [0,3], B "d e" [3,5]; hypothesis X "a b" [0,2], Y "c d e" [2,5].
    # all 5 words aligned as correct; pairs (A,X) 2, (A,Y) 1, (B,Y) 2; mapping X->A, Y->B
    # agrees on 4 -> WDER = 1/5 = 0.2
    ref = [Segment("s", "A", 0, 3, "a b c"), Segment("s", "B", 3, 5, "d e")]
    hyp = [Segment("s", "X", 0, 2, "a b"), Segment("s", "Y", 2, 5, "c d e")]
    result = wder(ref, hyp)
    assert result == WderResult(aligned_words=5, speaker_errors=1)
    assert result.error_rate == pytest.approx(0.2)


def test_deleted_and_inserted_words_do_not_count() -> None:
    # hypothesis drops "c" and adds "z" (said by Y): aligned a,b (X) and d,e (Y) = 4 words,
    # all agreeing after X->A, Y->B -> WDER 0/4 although WER is 2/5
    ref = [Segment("s", "A", 0, 3, "a b c"), Segment("s", "B", 3, 5, "d e")]
    hyp = [Segment("s", "X", 0, 2, "a b"), Segment("s", "Y", 3, 6, "d e z")]
    assert wder(ref, hyp) == WderResult(aligned_words=4, speaker_errors=0)


def test_one_hypothesis_speaker_for_two_reference_speakers() -> None:
    # A "a b", B "c d e"; hypothesis X says all five: mapping X->B agrees on 3, A's 2 wrong
    # -> 2/5; the mapping is one-to-one, so X cannot stand for both
    result = wder_counts((list("abcde"), list("AABBB")), (list("abcde"), ["X"] * 5))
    assert result == WderResult(aligned_words=5, speaker_errors=2)


def test_sessions_have_their_own_mapping_and_add_up() -> None:
    # s1: X is A (2 agree); s2: X is B (1 agree) -> 0 errors over 3 aligned words; a session
    # with hypothesis only aligns nothing
    ref = [Segment("s1", "A", 0, 1, "a b"), Segment("s2", "B", 0, 1, "c")]
    hyp = [Segment("s1", "X", 0, 1, "a b"), Segment("s2", "X", 0, 1, "c"),
           Segment("s3", "X", 0, 1, "d")]
    assert wder(ref, hyp) == WderResult(3, 0)
    assert WderResult.zero().error_rate is None


def test_character_units_and_normalisation() -> None:
    # cpCER-style tokens: "你好" / "世界" per character; hypothesis all by X:
    # 4 aligned, best X->A or B (2 each, tie) -> 2 errors; punctuation is normalised away
    ref = [Segment("s", "A", 0, 1, "你好"), Segment("s", "B", 1, 2, "世界")]
    hyp = [Segment("s", "X", 0, 2, "你好，世界。")]
    assert wder(ref, hyp, unit="char") == WderResult(4, 2)


def test_refuses_impossible_counts_and_missing_speakers() -> None:
    with pytest.raises(ValueError, match="speaker errors"):
        WderResult(aligned_words=1, speaker_errors=2)
    with pytest.raises(ValueError, match="segment without a speaker"):
        wder([Segment("s", None, 0, 1, "a")], [])
