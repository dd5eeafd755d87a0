"""The segment rule steps only the windows that can change its state (``_raw_segments``):
the segments must be those of stepping every window, whatever the probabilities."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from speecheval.vad.silero import SileroSettings
from speecheval.vad.silero_segments import SegmentRule, SegmentTracker, _pad, speech_segments

RULE = SileroSettings().rule(16_000)
RULES = {
    "scorer": RULE,
    "padded": dataclasses.replace(RULE, speech_pad=480.0),
    # with no maximum the legacy cut state is never read: this case documents that the
    # skipping ignores it (it gives what "scorer" gives)
    "legacy max rule, no maximum": dataclasses.replace(RULE, use_max_possible_silence=False),
    "neg threshold above threshold": dataclasses.replace(RULE, neg_threshold=0.6),
    "maximum length": dataclasses.replace(RULE, max_speech=16_000.0),
}


def every_window(probs: np.ndarray, rule: SegmentRule, n_samples: int) -> list[list[int]]:
    """The reference: the tracker stepped on every window, as a live stream is."""
    tracker = SegmentTracker(rule)
    for prob in probs.tolist():
        tracker.step(prob)
    return tracker.finish(n_samples)


def runs_of_probabilities(rng: np.random.Generator) -> np.ndarray:
    """Runs of speech, silence and in-between windows (the threshold 0.5 hit exactly too;
    no float32 equals neg_threshold 0.35: float32(0.35) is 0.3499999940)."""
    levels = np.array([0.0, 0.2, np.float32(0.35), 0.4, 0.5, 0.55, 0.6, 0.9], dtype=np.float32)
    lengths = rng.integers(1, 12, size=60)
    return np.repeat(levels[rng.integers(0, levels.size, size=60)], lengths)


@pytest.mark.parametrize("name", RULES)
def test_same_segments_as_stepping_every_window(name: str) -> None:
    rule = RULES[name]
    rng = np.random.default_rng(15)
    for _ in range(150):
        probs = runs_of_probabilities(rng)
        n_samples = probs.size * rule.window - int(rng.integers(0, rule.window))
        want = every_window(probs, rule, n_samples)
        assert speech_segments(probs, rule, n_samples) == _pad(want, rule.speech_pad,
                                                              n_samples)


def test_a_bridged_silence_then_speech_is_not_skipped() -> None:
    # In speech with silence begun, a speech window resets the silence: skipping it (as a
    # window of a run in speech) would end the segment at the second quiet run.
    probs = np.array([0.9] * 10 + [0.0] * 3 + [0.9] + [0.0] * 3 + [0.9] * 10 + [0.0] * 6,
                     dtype=np.float32)
    # min_silence 1600 samples (100 ms at 16 kHz): a quiet run of 3 windows reaches a
    # silence of 2 * 512 = 1024 < 1600, so no segment ends there; the final run starts its
    # silence at window 27 (27 * 512 = 13824) and reaches 4 * 512 = 2048 >= 1600 at window
    # 31. One segment, 0 to 13824 (longer than min_speech 4000; no padding). Skipping
    # window 13 would keep the silence begun at 10 * 512 = 5120, which reaches 2048 at
    # window 14: (0, 5120) instead.
    assert speech_segments(probs, RULE, probs.size * 512) == [(0, 13824)]
