"""The energy detector exactly at its thresholds and durations (voice-agent-session-metrics).

The spec: a segment opens when the level stays "at or above threshold_db" for
min_speech_ms, stays open while the level is at or above threshold_db - hysteresis_db
(voicebench compares with >= there too), and closes after min_silence_ms below it.

To hit a threshold exactly, the thresholds are chosen so that their energies are exact
binary numbers: threshold 0 dBFS is a frame energy of exactly frame_len * 1.0, and a
hysteresis of 20 log10(2) dB puts the lower threshold at exactly a quarter of that, the
energy of a square wave of amplitude 0.5. Each case runs both code paths: the whole track
at once (runs of frames, numpy) and frame by frame (the per-packet loop).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from speecheval.vad.streaming import StreamingVad, VadSettings, detect_segments

RATE = 16000
FRAME = 160  # 10 ms
HALF_AMPLITUDE_DB = 20 * math.log10(2)   # 6.0206 dB: amplitude 1.0 -> 0.5
EXACT = VadSettings(threshold_db=0.0, hysteresis_db=HALF_AMPLITUDE_DB)


def square(frames: int, amplitude: float) -> np.ndarray:
    return amplitude * np.where(np.arange(frames * FRAME) % 2 == 0, 1.0, -1.0)


def both_paths(samples: np.ndarray, settings: VadSettings) -> list[tuple[float, float, bool]]:
    """Segments of the whole track, checked equal to a frame-by-frame push."""
    whole = [(round(s.start_s, 6), round(s.end_s, 6), s.open_at_end)
             for s in detect_segments(samples, RATE, settings)]
    vad = StreamingVad(RATE, settings)
    for lo in range(0, samples.size, FRAME):
        vad.push(samples[lo:lo + FRAME])
    vad.flush()
    framewise = [(round(s.start_s, 6), round(s.end_s, 6), s.open_at_end) for s in vad.segments]
    assert whole == framewise
    return whole


def test_thresholds_are_exact_binary_energies() -> None:
    # the premise of this file: 10 ** (0 / 10) = 1 and 10 ** (-6.0206 / 10) = 0.25 exactly
    assert 10.0 ** (EXACT.threshold_db / 10.0) == 1.0
    assert 10.0 ** ((EXACT.threshold_db - EXACT.hysteresis_db) / 10.0) == 0.25


def test_level_exactly_at_the_threshold_opens_a_segment() -> None:
    # 10 silent frames, 40 frames at exactly 0 dBFS (amplitude 1.0), 40 silent frames:
    # a segment [0.10, 0.50), closed by 25 quiet frames.
    x = np.concatenate([square(10, 0.0), square(40, 1.0), square(40, 0.0)])
    assert both_paths(x, EXACT) == [(0.10, 0.50, False)]


def test_level_just_below_the_threshold_opens_nothing() -> None:
    # amplitude 1 - 2**-20 is a hair under 0 dBFS: no segment at all
    x = np.concatenate([square(10, 0.0), square(40, 1.0 - 2.0 ** -20), square(40, 0.0)])
    assert both_paths(x, EXACT) == []


def test_level_exactly_at_the_lower_threshold_keeps_the_segment_open() -> None:
    # open with 10 frames at 0 dBFS (0.1-0.2 s), then 30 frames at amplitude 0.5, exactly
    # the lower threshold (energy 0.25 * frame_len): still "active", so the segment runs
    # to 0.50 s and closes after the 25 silent frames that follow.
    x = np.concatenate([square(10, 0.0), square(10, 1.0), square(30, 0.5), square(40, 0.0)])
    assert both_paths(x, EXACT) == [(0.10, 0.50, False)]
    # a hair below the lower threshold, those 30 frames are quiet: 30 >= 25 closes the
    # segment at the last active frame, 0.20 s
    y = np.concatenate([square(10, 0.0), square(10, 1.0), square(30, 0.5 - 2.0 ** -20),
                        square(40, 0.0)])
    assert both_paths(y, EXACT) == [(0.10, 0.20, False)]


@pytest.mark.parametrize(("loud_frames", "expected"), [
    (4, []),                          # 40 ms < min_speech_ms 50: a click
    (5, [(0.10, 0.15, False)]),       # exactly 50 ms: a segment, backdated to 0.10 s
])
def test_min_speech_exactly(loud_frames: int, expected: list[tuple[float, float, bool]]) -> None:
    x = np.concatenate([square(10, 0.0), square(loud_frames, 1.0), square(40, 0.0)])
    assert both_paths(x, EXACT) == expected


@pytest.mark.parametrize(("quiet_frames", "expected"), [
    # 24 quiet frames (240 ms) are a pause inside one segment 0.10-0.54 s
    (24, [(0.10, 0.54, False)]),
    # exactly 25 (250 ms = min_silence_ms) split it: 0.10-0.20 and 0.45-0.55
    (25, [(0.10, 0.20, False), (0.45, 0.55, False)]),
])
def test_min_silence_exactly(quiet_frames: int,
                             expected: list[tuple[float, float, bool]]) -> None:
    x = np.concatenate([square(10, 0.0), square(10, 1.0), square(quiet_frames, 0.0),
                        square(10, 1.0), square(40, 0.0)])
    assert both_paths(x, EXACT) == expected


def test_segment_whose_silence_is_one_frame_short_at_the_end_is_open_at_end() -> None:
    # speech 0.10-0.20 s and then 24 quiet frames before the track ends: no offset was
    # confirmed, so flush closes it at its last active frame and marks it open at the end;
    # with 25 quiet frames the offset is confirmed and the flag is off
    x = np.concatenate([square(10, 0.0), square(10, 1.0), square(24, 0.0)])
    assert both_paths(x, EXACT) == [(0.10, 0.20, True)]
    y = np.concatenate([square(10, 0.0), square(10, 1.0), square(25, 0.0)])
    assert both_paths(y, EXACT) == [(0.10, 0.20, False)]


@pytest.mark.parametrize(("changes", "message"), [
    ({"frame_ms": 0.0}, "^frame_ms must be positive$"),
    ({"frame_ms": -10.0}, "^frame_ms must be positive$"),
    ({"min_speech_ms": -1.0}, "^min_speech_ms and min_silence_ms must not be negative$"),
    ({"min_silence_ms": -1.0}, "^min_speech_ms and min_silence_ms must not be negative$"),
    ({"hysteresis_db": -0.5}, "^hysteresis_db must not be negative$"),
])
def test_settings_are_checked(changes: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        VadSettings(**changes)


def test_zero_and_fractional_settings_are_allowed() -> None:
    # zero durations and zero hysteresis are valid (one frame is then enough), and so is a
    # frame shorter than a millisecond
    settings = VadSettings(frame_ms=0.5, min_speech_ms=0.0, min_silence_ms=0.0,
                           hysteresis_db=0.0)
    assert (settings.frame_ms, settings.min_speech_ms, settings.hysteresis_db) == (0.5, 0, 0)
    # with min_speech 0 a single loud frame (10 ms) is a segment, and min_silence 0 ends it
    # at the first quiet frame
    x = np.concatenate([square(10, 0.0), square(1, 1.0), square(10, 0.0)])
    zero = VadSettings(threshold_db=0.0, hysteresis_db=0.0, min_speech_ms=0.0,
                       min_silence_ms=0.0)
    assert both_paths(x, zero) == [(0.10, 0.11, False)]
