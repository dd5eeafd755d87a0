"""faster-whisper's VAD filter with one Silero pass for both the padded and bare regions.

Why: the whisper backend needs the speech regions twice: padded by ``speech_pad_ms``,
for faster-whisper to cut the track to before decoding, and unpadded, for the onset
snap (:func:`speecheval.asr.whisper.snap_onsets`). Asking faster-whisper's
``get_speech_timestamps`` for each ran Silero over the whole track twice (0.5 s of a
5-minute recording). The model's probabilities do not depend on the padding, so they are
computed once here, with faster-whisper's own model and input layout, and both region
lists come from them through :mod:`speecheval.vad.silero_segments`, whose legacy rule
(cut a too-long region at the last silence over 98 ms) is the state machine of
faster-whisper's ``get_speech_timestamps`` (``tests/asr/test_speech_regions.py`` checks
the regions equal that function's on random probabilities and on real speech).

The probabilities are float32 and faster-whisper compares them with the thresholds as
float32 (NumPy's rule for an array against a Python float), so the thresholds are
rounded to float32 here; the comparisons are then exactly faster-whisper's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..vad.silero_segments import SegmentRule, speech_segments
from .base import SAMPLE_RATE

if TYPE_CHECKING:
    from faster_whisper.vad import VadOptions

    from ..core.audio import Samples

WINDOW = 512
"""faster-whisper's window (``window_size_samples``) at 16 kHz."""
MIN_SILENCE_AT_MAX_SPEECH_MS = 98
"""The shortest silence at which faster-whisper cuts a region that grew too long."""


@dataclass(frozen=True)
class SpeechRegions:
    """A track's speech regions as faster-whisper's VAD filter finds them, in samples:
    ``padded`` (what is decoded) and ``bare`` (the same probabilities without padding)."""

    padded: list[tuple[int, int]]
    bare: list[tuple[int, int]]


def speech_probabilities(samples: Samples) -> np.ndarray:
    """faster-whisper's Silero v6 probability of each 512-sample window of ``samples``,
    with its padding (up to a whole window more, even when none is missing)."""
    from faster_whisper.vad import get_vad_model

    padded = np.pad(samples, (0, WINDOW - samples.shape[0] % WINDOW))
    return np.asarray(get_vad_model()(padded), dtype=np.float32).reshape(-1)


def segment_rule(options: VadOptions) -> SegmentRule:
    """faster-whisper's ``get_speech_timestamps`` parameters as a :class:`SegmentRule`."""
    pad = SAMPLE_RATE * options.speech_pad_ms / 1000
    neg = (options.neg_threshold if options.neg_threshold is not None
           else max(options.threshold - 0.15, 0.01))
    return SegmentRule(
        window=WINDOW, threshold=float(np.float32(options.threshold)),
        neg_threshold=float(np.float32(neg)),
        min_speech=SAMPLE_RATE * options.min_speech_duration_ms / 1000,
        min_silence=SAMPLE_RATE * options.min_silence_duration_ms / 1000,
        max_speech=SAMPLE_RATE * options.max_speech_duration_s - WINDOW - 2 * pad,
        min_silence_at_max_speech=SAMPLE_RATE * MIN_SILENCE_AT_MAX_SPEECH_MS / 1000,
        use_max_possible_silence=False, speech_pad=pad)


def speech_regions(samples: Samples, options: VadOptions) -> SpeechRegions:
    """The padded regions ``get_speech_timestamps(samples, options)`` returns, and the
    regions it returns with ``speech_pad_ms`` 0, from one run of the model."""
    from faster_whisper.vad import VadOptions

    probs = speech_probabilities(samples)
    bare = VadOptions(**{**vars(options), "speech_pad_ms": 0})
    n = int(samples.shape[0])
    return SpeechRegions(speech_segments(probs, segment_rule(options), n),
                         speech_segments(probs, segment_rule(bare), n))
