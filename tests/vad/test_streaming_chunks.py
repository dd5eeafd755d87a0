"""StreamingVad's state between pushes and inside long pushes.

The detector has two code paths (a per-frame loop for pushes of at most 32 frames, runs of
frames for longer ones) and carries the length of the current loud or quiet run from one
push to the next. Whatever the chunking, the segments must be those of the whole track
pushed at once; these tests push in chunks that take the long path every time, cut at
odd sample offsets, and in a track long enough to be split into several internal blocks.
"""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.vad.streaming import StreamingVad, VadSettings, detect_segments

RATE = 16000
FRAME = 160


def speechy_track(seed: int, seconds: float) -> np.ndarray:
    """int16 noise whose level jumps between silence and speech levels at random samples
    (not at frame boundaries), with pauses around the 250 ms minimum silence."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    envelope = np.zeros(n)
    pos = int(rng.integers(0, 4000))
    while pos < n:
        length = int(rng.integers(400, 12000))
        envelope[pos:pos + length] = rng.choice([0.002, 0.01, 0.03, 0.2])
        pos += length + int(rng.integers(1000, 6000))
    noise = rng.standard_normal(n) * envelope * 32768
    return np.clip(np.round(noise), -32768, 32767).astype(np.int16)


def pushed(samples: np.ndarray, sizes: list[int], settings: VadSettings | None = None,
           rate: int = RATE) -> list[tuple[float, float, bool]]:
    vad = StreamingVad(rate, settings)
    pos = 0
    for size in sizes:
        vad.push(samples[pos:pos + size])
        pos += size
    vad.push(samples[pos:])
    vad.flush()
    return [(s.start_s, s.end_s, s.open_at_end) for s in vad.segments]


def whole(samples: np.ndarray, settings: VadSettings | None = None,
          rate: int = RATE) -> list[tuple[float, float, bool]]:
    return [(s.start_s, s.end_s, s.open_at_end)
            for s in detect_segments(samples, rate, settings)]


@pytest.mark.parametrize("seed", range(6))
def test_long_path_chunks_carry_their_state(seed: int) -> None:
    # chunks of 33 to 80 frames plus 0 to 159 samples: every push takes the runs path, and
    # loud and quiet runs keep crossing chunk boundaries
    track = speechy_track(seed, 30.0)
    expected = whole(track)
    assert len(expected) >= 10, "the track should hold many segments"
    rng = np.random.default_rng(1000 + seed)
    sizes = [int(rng.integers(33, 81)) * FRAME + int(rng.integers(0, FRAME))
             for _ in range(track.size // (33 * FRAME))]
    assert pushed(track, sizes) == expected
    # the same as floats in [-1, 1)
    assert pushed(track.astype(np.float32) / 32768, sizes) == expected


@pytest.mark.parametrize("seed", range(3))
def test_chunks_of_every_size_around_the_path_switch(seed: int) -> None:
    # sizes from 1 sample to 40 frames: both paths, in every order
    track = speechy_track(seed, 12.0)
    rng = np.random.default_rng(2000 + seed)
    sizes = [int(rng.integers(1, 40 * FRAME)) for _ in range(400)]
    assert pushed(track, sizes) == whole(track)


def test_a_track_longer_than_one_internal_block() -> None:
    # 2 * 16384 + 100 frames at 8 kHz (80-sample frames): one push is reduced in three
    # blocks, the last one partial; the result equals pushing 50 frames at a time
    rate, frame = 8000, 80
    frames = 2 * 16384 + 100
    rng = np.random.default_rng(5)
    levels = np.repeat(rng.choice([0.0, 0.3], size=frames // 40 + 1), 40)[:frames]
    track = np.repeat(levels, frame) * np.where(np.arange(frames * frame) % 2 == 0, 1.0, -1.0)
    expected = whole(track, rate=rate)
    assert len(expected) > 100
    assert pushed(track, [50 * frame] * (frames // 50), rate=rate) == expected
    assert expected[-1][1] <= frames * frame / rate


def test_one_frame_segments_with_zero_durations() -> None:
    # min_speech 0 and min_silence 0: one loud frame is a segment, one quiet frame ends it.
    # 60 frames alternating loud/quiet (the long path in one push, the short path frame by
    # frame): 30 segments [2k, 2k + 1) frames, i.e. [0.02 k, 0.02 k + 0.01) s
    settings = VadSettings(threshold_db=-20.0, min_speech_ms=0.0, min_silence_ms=0.0)
    frames = np.where(np.arange(60) % 2 == 0, 0.5, 0.0)
    track = np.repeat(frames, FRAME) * np.where(np.arange(60 * FRAME) % 2 == 0, 1.0, -1.0)
    expected = [(round(0.02 * k, 6), round(0.02 * k + 0.01, 6), False) for k in range(30)]
    rounded = [(round(a, 6), round(b, 6), c) for a, b, c in whole(track, settings)]
    assert rounded == expected
    framewise = pushed(track, [FRAME] * 59, settings)
    assert [(round(a, 6), round(b, 6), c) for a, b, c in framewise] == expected


def test_speaking_is_a_boolean_before_during_and_after_speech() -> None:
    vad = StreamingVad(RATE)
    assert vad.speaking is False
    loud = 0.3 * np.where(np.arange(10 * FRAME) % 2 == 0, 1.0, -1.0)
    vad.push(loud)
    assert vad.speaking is True
    vad.push(np.zeros(30 * FRAME))
    assert vad.speaking is False and len(vad.segments) == 1


def test_frame_length_is_rounded_to_whole_samples() -> None:
    # 10.0325 ms at 16 kHz is 160.52 samples -> 161; 0.05 ms is 0.8 samples -> 1
    assert StreamingVad(RATE, VadSettings(frame_ms=10.0325)).frame_len == 161
    assert StreamingVad(RATE, VadSettings(frame_ms=0.05)).frame_len == 1


def test_a_very_long_minimum_silence_counts_whole_frames() -> None:
    # min_silence 10010 ms with 10 ms frames needs 1001 quiet frames: 1000 keep the
    # segment open (it is still open at the end), 1001 close it
    settings = VadSettings(min_silence_ms=10010.0)
    loud = 0.3 * np.where(np.arange(10 * FRAME) % 2 == 0, 1.0, -1.0)
    open_track = np.concatenate([loud, np.zeros(1000 * FRAME)])
    assert whole(open_track, settings) == [(0.0, 0.1, True)]
    closed_track = np.concatenate([loud, np.zeros(1001 * FRAME)])
    assert whole(closed_track, settings) == [(0.0, 0.1, False)]


def test_mixing_sample_types_is_refused_with_its_message() -> None:
    vad = StreamingVad(RATE)
    vad.push(np.zeros(10, dtype=np.int16))
    with pytest.raises(ValueError, match="^StreamingVad: do not mix int16 and float chunks in "
                                         "one stream$"):
        vad.push(np.zeros(10, dtype=np.float32))
