"""The one-pass speech regions equal faster-whisper's ``get_speech_timestamps``.

faster-whisper's own function is the independent reference: its model is replaced by
one that answers given probabilities (the state machine is what is compared; the model's
run is the same call either way), and the regions must be equal, padded and unpadded,
for random probability tracks that open, cut (at the 98 ms rule and hard at the maximum
length) and close regions, and for probabilities exactly at the float32 thresholds.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("faster_whisper")

from faster_whisper import vad as fw_vad  # noqa: E402
from faster_whisper.vad import VadOptions, get_speech_timestamps  # noqa: E402

from speecheval.asr.speech_regions import WINDOW, segment_rule, speech_regions  # noqa: E402
from speecheval.asr.whisper import VadFilter  # noqa: E402
from speecheval.vad.silero_segments import speech_segments  # noqa: E402


class GivenProbabilities:
    """A stand-in for faster-whisper's Silero model: the probabilities it was given, in
    the model's output shape (one row per window)."""

    def __init__(self, probs: np.ndarray) -> None:
        self.probs = probs

    def __call__(self, audio: np.ndarray) -> np.ndarray:
        assert audio.shape[0] == self.probs.size * WINDOW
        return self.probs.reshape(-1, 1)


def random_track(rng: np.random.Generator, windows: int) -> np.ndarray:
    """Runs of speech, doubtful and silent windows (1 to 120 windows each), and single
    windows exactly at the float32 thresholds 0.5 and 0.35."""
    levels = [lambda n: rng.uniform(0.5, 1.0, n), lambda n: rng.uniform(0.35, 0.5, n),
              lambda n: rng.uniform(0.0, 0.35, n),
              lambda n: np.full(n, np.float32(0.5)), lambda n: np.full(n, np.float32(0.35))]
    parts, total = [], 0
    while total < windows:
        kind = int(rng.integers(0, 5))
        n = 1 if kind >= 3 else int(rng.integers(1, 120))
        parts.append(levels[kind](n))
        total += n
    return np.concatenate(parts)[:windows].astype(np.float32)


OPTIONS = [
    VadOptions(**vars(VadFilter())),
    # short regions and silences, so that regions are cut at the maximum length
    VadOptions(threshold=0.5, neg_threshold=0.35, min_speech_duration_ms=100,
               max_speech_duration_s=3.0, min_silence_duration_ms=300, speech_pad_ms=200),
    VadOptions(threshold=0.5, neg_threshold=None, min_speech_duration_ms=0,
               max_speech_duration_s=float("inf"), min_silence_duration_ms=100,
               speech_pad_ms=30),
]


@pytest.mark.parametrize("options", OPTIONS, ids=["whisper", "cutting", "unbounded"])
def test_regions_equal_faster_whispers(options: VadOptions,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(2026)
    for trial in range(12):
        probs = random_track(rng, int(rng.integers(50, 3000)))
        # the audio's length: faster-whisper pads it to whole windows, one more if whole
        n_samples = (probs.size - 1) * WINDOW + int(rng.integers(0, WINDOW))
        audio = np.zeros(n_samples, np.float32)
        monkeypatch.setattr(fw_vad, "get_vad_model", lambda p=probs: GivenProbabilities(p))
        for opts in (options, replace(options, speech_pad_ms=0)):
            expected = [(r["start"], r["end"]) for r in get_speech_timestamps(audio, opts)]
            assert speech_segments(probs, segment_rule(opts), n_samples) == expected, trial
        both = speech_regions(audio, options)
        assert both.padded == [(r["start"], r["end"])
                               for r in get_speech_timestamps(audio, options)]
        assert both.bare == [(r["start"], r["end"]) for r in get_speech_timestamps(
            audio, replace(options, speech_pad_ms=0))]


def test_a_cut_happens_in_these_tracks(monkeypatch: pytest.MonkeyPatch) -> None:
    # The comparison above must reach the maximum-length rule: with regions of at most
    # 3 s (16000 * 3 - 512 - 2 * 3200 = 41088 samples) some region is exactly cut short.
    rng = np.random.default_rng(2026)
    rule = segment_rule(OPTIONS[1])
    assert rule.max_speech == 16000 * 3.0 - 512 - 2 * 3200
    lengths = [b - a for _ in range(25)
               for a, b in speech_segments(random_track(rng, 3000), replace(
                   rule, speech_pad=0.0), 3000 * WINDOW)]
    assert max(lengths) <= rule.max_speech + WINDOW
    assert sum(length > rule.max_speech - 20 * WINDOW for length in lengths) > 0
