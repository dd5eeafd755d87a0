"""Silero's segment state machine on hand-written probabilities (no model, no torch).

Unless a test says otherwise the rule is the scorer's at 16 kHz: windows of 512 samples,
threshold 0.5, neg_threshold 0.5 - 0.15 = 0.35, min speech 16000 * 250 / 1000 = 4000
samples, min silence 16000 * 100 / 1000 = 1600 samples, no padding, no maximum length.
Window i starts at sample 512 * i.
"""

from __future__ import annotations

import dataclasses

import pytest

from speecheval.vad.silero import SileroSettings
from speecheval.vad.silero_segments import SegmentRule, speech_segments

RULE = SileroSettings().rule(16_000)
S, Q = 0.9, 0.0  # a speech window and a quiet window


def windows(*runs: tuple[float, int]) -> list[float]:
    """Probabilities from (value, count) runs."""
    return [value for value, count in runs for _ in range(count)]


def test_rule_from_settings_matches_silero_arithmetic() -> None:
    # neg threshold 0.5 - 0.15 is 0.35 up to float rounding, exactly as Silero computes it.
    assert RULE.neg_threshold == 0.5 - 0.15 == pytest.approx(0.35)
    assert dataclasses.replace(RULE, neg_threshold=0.35) == SegmentRule(
        window=512, threshold=0.5, neg_threshold=0.35, min_speech=4000.0, min_silence=1600.0,
        max_speech=float("inf"), min_silence_at_max_speech=1568.0,
        use_max_possible_silence=True, speech_pad=0.0)
    # 8 kHz: 256-sample windows; 8000 * 250 / 1000 = 2000, 8000 * 100 / 1000 = 800.
    rule8 = SileroSettings().rule(8_000)
    assert (rule8.window, rule8.min_speech, rule8.min_silence) == (256, 2000.0, 800.0)


def test_no_speech_gives_nothing() -> None:
    assert speech_segments(windows((Q, 50)), RULE, 50 * 512) == []
    assert speech_segments([], RULE, 0) == []


def test_silence_splits_only_after_five_quiet_windows() -> None:
    # Silence is measured from the first quiet window's start to the current window's start:
    # after k quiet windows it is (k - 1) * 512, which reaches 1600 at k = 5 (2048 samples);
    # k = 4 gives 1536 < 1600, so four quiet windows (128 ms) are bridged.
    bridged = windows((Q, 2), (S, 10), (Q, 4), (S, 10), (Q, 6))
    # One segment from window 2 (1024) to the first quiet window after it, 26 (13312).
    assert speech_segments(bridged, RULE, len(bridged) * 512) == [(1024, 13312)]
    split = windows((Q, 2), (S, 10), (Q, 5), (S, 10), (Q, 6))
    # first: windows 2..11 -> [1024, 6144); second starts at window 17 = 8704 and ends at
    # window 27 = 13824.
    assert speech_segments(split, RULE, len(split) * 512) == [(1024, 6144), (8704, 13824)]


def test_min_speech_is_strictly_longer_than_4000_samples() -> None:
    # 8 windows = 4096 > 4000 is kept; 7 windows = 3584 is dropped.
    kept = windows((Q, 1), (S, 8), (Q, 6))
    assert speech_segments(kept, RULE, len(kept) * 512) == [(512, 4608)]
    dropped = windows((Q, 1), (S, 7), (Q, 6))
    assert speech_segments(dropped, RULE, len(dropped) * 512) == []


def test_threshold_hysteresis() -> None:
    # 0.4 is below 0.5 so it cannot start speech, but above 0.35 so it cannot end it.
    probs = windows((0.4, 3), (0.5, 1), (0.4, 20), (0.3, 5))
    # Starts at window 3 (0.5 >= 0.5 counts), ends at window 24 = 12288.
    assert speech_segments(probs, RULE, len(probs) * 512) == [(1536, 12288)]


def test_speech_running_to_the_end_ends_at_the_last_sample() -> None:
    probs = windows((Q, 2), (S, 10))
    # 11.5 windows of audio: 5888 samples; the open segment ends there, not at 12 * 512.
    assert speech_segments(probs, RULE, 5888) == [(1024, 5888)]
    # ... and is dropped when it is not longer than min speech: 5000 - 1024 = 3976.
    assert speech_segments(probs, RULE, 5000) == []


def test_padding_widens_and_splits_short_gaps() -> None:
    rule = dataclasses.replace(RULE, speech_pad=480.0)  # 30 ms at 16 kHz
    probs = windows((Q, 4), (S, 10), (Q, 5), (S, 10), (Q, 10))
    # Raw: [2048, 7168) and [9728, 14848); gap 2560 >= 960, so each side gets 480:
    # [1568, 7648) and [9248, 15328).
    assert speech_segments(probs, rule, len(probs) * 512) == [(1568, 7648), (9248, 15328)]
    wide = dataclasses.replace(RULE, speech_pad=1600.0)
    # Gap 2560 < 3200: split in half (1280 each side); outer edges padded by 1600:
    # 2048 - 1600 = 448 and 14848 + 1600 = 16448.
    assert speech_segments(probs, wide, len(probs) * 512) == [(448, 8448), (8448, 16448)]


def test_maximum_length_cuts_at_the_longest_silence() -> None:
    # max speech 8000 samples (0.5 s at 16 kHz) less one window: 8000 - 512 = 7488.
    rule = dataclasses.replace(RULE, max_speech=7488.0, min_silence=10_000.0)
    probs = windows((S, 5), (Q, 5), (S, 2), (Q, 7), (S, 20))
    # Quiet runs: windows 5..9 (2560 samples, > 1568, recorded when speech returns at 10)
    # and 12..18. At window 15 (7680 - 0 > 7488) only the first is known: cut at 2560; the
    # next segment opens at 2560 + 2560 = 5120. At window 25 (12800 - 5120 = 7680 > 7488)
    # the run 12..18 is known (2048 samples from 7680, because the count restarted at the
    # cut in window 15): cut at 7680 and reopen at 9728. At window 34 (17408 - 9728 = 7680)
    # no silence was seen, so the cut falls at the current window; speech restarts at 35
    # and runs to the end (19968), but 19968 - 17920 = 2048 is not over 4000: dropped.
    assert speech_segments(probs, rule, len(probs) * 512) == [(0, 2560), (5120, 7680),
                                                              (9728, 17408)]


def test_maximum_length_legacy_rule_cuts_at_the_last_silence() -> None:
    rule = dataclasses.replace(RULE, max_speech=7488.0, min_silence=10_000.0,
                               use_max_possible_silence=False)
    probs = windows((S, 5), (Q, 5), (S, 2), (Q, 7), (S, 20))
    # Legacy rule: prev_end is set to a silence's start once it has lasted over 1568
    # samples, i.e. at its fifth quiet window (4 * 512 = 2048): window 9 sets it to 2560.
    # Speech returns at 10 while next_start (0) < prev_end: next_start = 5120. At window
    # 15 (7680 > 7488) the cut is at 2560 and the segment reopens at 5120. Window 15 is
    # quiet, so the silence count restarts there (7680): the rest of that run, 15..18, is
    # only 1536 samples, never over 1568, so no new prev_end. At window 25
    # (12800 - 5120 > 7488) there is no usable silence: cut at the current window, 12800,
    # and speech is off. It restarts at 26 (13312) and runs to the end: 19968 - 13312 =
    # 6656 > 4000, kept. (Checked against silero_vad.get_speech_timestamps_from_probs.)
    assert speech_segments(probs, rule, len(probs) * 512) == [(0, 2560), (5120, 12800),
                                                              (13312, 19968)]
