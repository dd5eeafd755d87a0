"""SileroStream: a live track gives the boundaries SileroVad finds in the whole track."""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.core.audio import Audio, resample
from speecheval.core.errors import InputError
from speecheval.vad.silero import SileroVad
from speecheval.vad.silero_stream import SileroStream

from .audio_cases import RATE, join, noise, silence, speech

# min_speech_ms (250) plus a 32 ms window: the latest an onset can become certain, plus
# one window of slack for the window that was still filling when speech started
ONSET_LAG_S = 0.25 + 2 * 0.032


def track(rate: int) -> np.ndarray:
    """Speech, a pause long enough to close it, a short click, speech running to the end."""
    parts = join(silence(700), speech("a"), silence(600), noise(60, 0.05, 1), silence(500),
                 speech("b")[:-3000])
    audio = parts if rate == RATE else resample(parts, RATE, rate)
    return np.round(np.clip(audio, -1, 32767 / 32768) * 32768).astype(np.int16)


@pytest.mark.parametrize(("rate", "seed"), [(16_000, 0), (16_000, 1), (8_000, 2),
                                            (48_000, 3)])
def test_live_boundaries_are_the_whole_track_segments(rate: int, seed: int) -> None:
    pcm = track(rate)
    whole = SileroVad().segments(Audio(pcm.astype(np.float32) / 32768.0, rate))
    assert len(whole) >= 2  # speech before the pause and after it
    stream = SileroStream(rate)
    rng = np.random.default_rng(seed)
    onsets: list[float] = []
    offsets: list[float] = []
    pos = 0
    while pos < pcm.size:  # chunks from one sample to 100 ms, as packets arrive
        size = int(rng.integers(1, rate // 10))
        pos_after = min(pcm.size, pos + size)
        for boundary in stream.push(pcm[pos:pos_after]):
            at = boundary.time_s
            if boundary.kind == "onset":
                onsets.append(at)
                # reported once certain, not long after
                assert pos_after / rate - at <= ONSET_LAG_S + size / rate
            else:
                offsets.append(at)
        pos = pos_after
    assert onsets == [segment.start_s for segment in whole]
    # the last segment runs to the end of the track: it has no offset yet
    assert offsets == [segment.end_s for segment in whole[:-1]]
    assert stream.speaking


def test_rates_a_stream_cannot_follow_are_refused() -> None:
    with pytest.raises(InputError, match="not 24000 Hz"):
        SileroStream(24_000)
