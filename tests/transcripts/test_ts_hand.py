"""Timestamp measures on small cases worked out by hand (arithmetic in the comments)."""

from __future__ import annotations

import pytest

from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.timestamps.score import score_timestamps


def seg(speaker: str | None, start: float | None, end: float | None, words: str) -> Segment:
    return Segment("rec", speaker, start, end, words)


# Reference turns (word tokens):
#   T0 A 0-2    one two three four five   (5 tokens, anchor width ceil(1.0) = 1)
#   T1 B 2.5-4  six seven                 (2 tokens)
#   T2 A 5-6    eight nine ten            overlaps T3 (another speaker): excluded
#   T3 B 5.5-7  eleven                    overlaps T2: excluded
#   T4 A 8-9    twelve thirteen fourteen  (3 tokens)
#   T5 B 10-11  (no words)                empty: excluded
#   T6 C 12-13  alpha
REF_TURNS = [
    seg("A", 0.0, 2.0, "One, two three four five."), seg("B", 2.5, 4.0, "six seven"),
    seg("A", 5.0, 6.0, "eight nine ten"), seg("B", 5.5, 7.0, "eleven"),
    seg("A", 8.0, 9.0, "twelve thirteen fourteen"), seg("B", 10.0, 11.0, ""),
    seg("C", 12.0, 13.0, "alpha"),
]
# Hypothesis words: 'seven' deleted, 'thirteen fourteen' -> 'xx yy' (3 edits, unique path).
HYP_WORDS = [seg(None, s, e, w) for s, e, w in [
    (0.1, 0.4, "one"), (0.5, 0.8, "two"), (0.9, 1.2, "three"), (1.3, 1.6, "four"),
    (1.7, 2.2, "five"), (2.6, 3.0, "six"), (5.0, 5.3, "eight"), (5.4, 5.6, "nine"),
    (5.7, 6.0, "ten"), (6.1, 6.5, "eleven"), (8.5, 8.8, "twelve"), (8.8, 8.9, "xx"),
    (8.9, 9.2, "yy"), (12.4, 13.9, "alpha")]]
HYP_TURNS = [seg("X", 0.0, 2.2, "-"), seg("Y", 2.6, 3.0, "-"), seg("X", 5.0, 6.5, "-"),
             seg("X", 8.5, 9.2, "-"), seg("Z", 12.4, 13.9, "-")]


def test_turn_timing_counts_errors_and_coverage() -> None:
    result = score_timestamps(REF_TURNS, "word", hypothesis_words=HYP_WORDS,
                              hypothesis_turns=HYP_TURNS).report_dict()
    assert result["granularity"] == "token"
    turns = result["turns"]
    # T1: 1 of 2 matched (50% is enough) but its last 20% (token 'seven') has no anchor.
    # T4: 1 of 3 matched, below 50%. Scorable: T0 and T6.
    assert turns["reference_turns"] == 7
    assert turns["excluded_turns"] == {"overlapping": 2, "empty": 1,
                                       "matched_below_50_percent": 1,
                                       "no_anchor_in_first_or_last_20_percent": 1}
    assert turns["scorable_turns"] == 2
    assert turns["scorable_turn_coverage"] == pytest.approx(2 / 7)
    # 15 reference tokens, 12 matched (all but seven, thirteen, fourteen): 0.8.
    assert (turns["reference_tokens"], turns["matched_reference_tokens"]) == (15, 12)
    assert turns["reference_token_match_coverage"] == pytest.approx(0.8)
    # T0 predicted 0.1-2.2 (start err 0.1, end err 0.2); T6 predicted 12.4-13.9 (0.4, 0.9).
    start, end = turns["start"], turns["end"]
    assert start["mean_s"] == pytest.approx(0.25)
    assert start["median_s"] == pytest.approx(0.25)
    assert start["hits"] == {"0.25": 1, "0.5": 2, "1.0": 2}
    assert end["mean_s"] == pytest.approx(0.55)
    # Linear percentiles of [0.2, 0.9]: P90 = 0.2 + 0.9 * 0.7 = 0.83, P95 = 0.865.
    assert end["p90_s"] == pytest.approx(0.83)
    assert end["p95_s"] == pytest.approx(0.865)
    assert end["hit_rate"] == {"0.25": 0.5, "0.5": 0.5, "1.0": 1.0}
    # IoU T0: [0,2] vs [0.1,2.2] = 1.9 / 2.2; T6: [12,13] vs [12.4,13.9] = 0.6 / 1.9.
    assert turns["mean_iou"] == pytest.approx((1.9 / 2.2 + 0.6 / 1.9) / 2)


def test_speech_coverage_and_union_iou() -> None:
    speech = score_timestamps(REF_TURNS, "word", hypothesis_words=HYP_WORDS).report_dict()["speech"]
    # Reference union: 2 + 1.5 + 2 (5-7) + 1 + 1 + 1 = 8.5 s. Hypothesis words: 1.7 (T0
    # words) + 0.4 + 0.3 + 0.2 + 0.3 + 0.4 + 0.3 + 0.1 + 0.3 + 1.5 = 5.5 s. Shared: 1.5 +
    # 0.4 + 1.2 + 0.3 + 0.1 + 0.1 (yy to 9.0) + 0.6 (alpha to 13.0) = 4.2 s.
    assert speech["reference_speech_s"] == pytest.approx(8.5)
    assert speech["hypothesis_speech_s"] == pytest.approx(5.5)
    assert speech["shared_speech_s"] == pytest.approx(4.2)
    assert speech["speech_coverage"] == pytest.approx(4.2 / 8.5)
    assert speech["speech_iou"] == pytest.approx(4.2 / (8.5 + 5.5 - 4.2))


def test_turn_boundary_precision_recall() -> None:
    bounds = score_timestamps(REF_TURNS, "word", hypothesis_words=HYP_WORDS,
                              hypothesis_turns=HYP_TURNS).report_dict()["turn_boundaries"]
    # Reference points (overlapping T2, T3 left out): 0 2 2.5 4 8 9 10 11 12 13 (10).
    # Hypothesis points 0 2.2 2.6 3 5 6.5 8.5 9.2 12.4 13.9; 5 and 6.5 lie in the
    # overlapped span [5, 7]. They are left out unless a kept reference point is within
    # the tolerance: at 0.25 and 0.5 s none is (4 is 1 s from 5, 8 is 1.5 s from 6.5): 8
    # points; at 1.0 s, 5 is within 1.0 of 4 and stays: 9 points.
    # 0.25 s: 0-0, 2-2.2, 2.5-2.6, 9-9.2 -> 4. 0.5 s: + 8-8.5, 12-12.4 -> 6.
    # 1.0 s: + 4-3 (or 4-5, one of them), 13-13.9 -> 8.
    assert {k: (v["matched"], v["reference"], v["hypothesis"]) for k, v in bounds.items()} \
        == {"0.25": (4, 10, 8), "0.5": (6, 10, 8), "1.0": (8, 10, 9)}
    assert bounds["0.5"]["f1"] == pytest.approx(12 / 18)


def boundaries_of(reference: list[Segment], hypothesis: list[Segment]
                  ) -> dict[str, tuple[int, int, int]]:
    result = score_timestamps(reference, "word", hypothesis_words=[
        seg(None, s.start, s.end, s.words) for s in reference],
        hypothesis_turns=hypothesis).report_dict()["turn_boundaries"]
    return {k: (v["matched"], v["reference"], v["hypothesis"]) for k, v in result.items()}


def test_boundary_shared_with_an_overlapped_turn_is_kept() -> None:
    # A 0-10, B 10-20, C 15-25: B and C overlap, so only A is kept: reference points
    # {0, 10}. An identical system has points 0 10 15 20 25; 15, 20, 25 lie in the
    # overlapped span [10, 25] with no kept point within 1 s and are left out, but 10 is a
    # kept reference point and stays. Matches 0-0 and 10-10: 2 of 2 on both sides, recall
    # 1.0 (before: 10 was dropped with the overlapped turn, recall 1/2).
    ref = [seg("A", 0.0, 10.0, "a b"), seg("B", 10.0, 20.0, "c d"),
           seg("C", 15.0, 25.0, "e f")]
    assert boundaries_of(ref, ref) == {"0.25": (2, 2, 2), "0.5": (2, 2, 2), "1.0": (2, 2, 2)}


def test_same_speaker_splits_are_not_turn_boundaries() -> None:
    # Reference A 0-3, A 3-6 (one turn split in two sentences), B 6-9; A 0-6 and B 6-9
    # after joining (gap 0 <= 0.1 s): points 0 6 9. The system writes X 0-4.95, X 5-6
    # (gap 0.05 s, joined to X 0-6) and Y 6-9: points 0 6 9. 3 of 3 matched, and neither 3
    # (reference) nor 4.95/5 (system) count (before: reference 4 points, system 5).
    ref = [seg("A", 0.0, 3.0, "a b"), seg("A", 3.0, 6.0, "c d"), seg("B", 6.0, 9.0, "e f")]
    hyp = [seg("X", 0.0, 4.95, "-"), seg("X", 5.0, 6.0, "-"), seg("Y", 6.0, 9.0, "-")]
    assert boundaries_of(ref, hyp) == {"0.25": (3, 3, 3), "0.5": (3, 3, 3), "1.0": (3, 3, 3)}
    # A gap above 0.1 s is a real pause: X 0-4.8 and X 5-6 stay two turns, so 4.8 and 5
    # are system points with no reference point within 1 s (3 and 6 are 1.8 and 1 s away:
    # 5-6 is exactly 1.0 s, but 6 is already matched by 6): matched 3 of 3 reference, 5
    # system points.
    hyp_pause = [seg("X", 0.0, 4.8, "-"), seg("X", 5.0, 6.0, "-"), seg("Y", 6.0, 9.0, "-")]
    assert boundaries_of(ref, hyp_pause)["0.25"] == (3, 3, 5)


def test_anchor_rule_on_characters() -> None:
    ref = [seg("A", 0.0, 1.0, "你好世界")]
    # 4 tokens: anchor width ceil(0.8) = 1. '界' misheard: 3/4 matched but no last anchor.
    wrong_end = [seg(None, s, e, w) for s, e, w in
                 [(0.1, 0.3, "你"), (0.3, 0.5, "好"), (0.5, 0.7, "世"), (0.7, 0.95, "介")]]
    turns = score_timestamps(ref, "char", hypothesis_words=wrong_end).report_dict()["turns"]
    assert turns["scorable_turns"] == 0
    assert turns["excluded_turns"]["no_anchor_in_first_or_last_20_percent"] == 1
    right = wrong_end[:3] + [seg(None, 0.7, 0.95, "界")]
    turns = score_timestamps(ref, "char", hypothesis_words=right).report_dict()["turns"]
    # Predicted 0.1-0.95: start error 0.1, end error 0.05.
    assert turns["start"]["mean_s"] == pytest.approx(0.1)
    assert turns["end"]["mean_s"] == pytest.approx(0.05)


def test_matched_token_errors_with_reference_word_times() -> None:
    ref_words = [seg(None, 0.0, 0.5, "a"), seg(None, 0.5, 1.0, "b"), seg(None, 1.0, 1.5, "c")]
    hyp_words = [seg(None, 0.1, 0.5, "a"), seg(None, 0.5, 1.0, "x"), seg(None, 1.3, 1.9, "c")]
    tokens = score_timestamps([seg("A", 0.0, 1.5, "a b c")], "word",
                              hypothesis_words=hyp_words,
                              reference_words=ref_words).report_dict()["tokens"]
    # a and c match: start errors 0.1 and 0.3, end errors 0.0 and 0.4.
    assert tokens["matched_tokens"] == 2
    assert score_timestamps([seg("A", 0.0, 1.5, "a b c")], "word", hypothesis_words=hyp_words,
                            reference_words=ref_words).reference_granularity == "word"
    assert tokens["reference_token_match_coverage"] == pytest.approx(2 / 3)
    assert tokens["start"]["mean_s"] == pytest.approx(0.2)
    assert tokens["end"]["hits"] == {"0.25": 1, "0.5": 2, "1.0": 2}


def test_segment_only_system_goes_to_the_diagnostic() -> None:
    ref = [seg("A", 0.0, 2.0, "a b c"), seg("B", 2.0, 4.0, "d e"), seg("A", 4.0, 6.0, "f g")]
    # H0 pairs uniquely with R0; H1 holds tokens of R1 and R2, so neither is unique.
    hyp = [seg("S1", 0.1, 1.8, "a b c"), seg("S2", 2.2, 6.5, "d e f g")]
    result = score_timestamps(ref, "word", hypothesis_segments=hyp,
                              hypothesis_turns=hyp).report_dict()
    assert result["granularity"] == "segment"
    assert result["turns"] is None
    diag = result["segment_pairs_diagnostic"]
    assert (diag["unique_pairs"], diag["reference_segments"]) == (1, 3)
    # Pair R0/H0: start error 0.1, end error 0.2, IoU 1.7 / 2.0.
    assert diag["start"]["mean_s"] == pytest.approx(0.1)
    assert diag["end"]["mean_s"] == pytest.approx(0.2)
    assert diag["mean_iou"] == pytest.approx(0.85)


def test_no_times_is_unsupported() -> None:
    result = score_timestamps([seg("A", 0.0, 1.0, "a")], "word",
                              hypothesis_segments=[seg("A", None, None, "a")]).report_dict()
    assert result["granularity"] == "unsupported"
    assert result["turns"] is None and result["segment_pairs_diagnostic"] is None
    # No hypothesis speaker turns were given either: boundaries are unsupported, not 0.
    assert result["turn_boundaries"] is None
    assert result["notes"] == ["the system gives no timestamps",
                               "no hypothesis speaker turns: turn boundary F1 unsupported"]
