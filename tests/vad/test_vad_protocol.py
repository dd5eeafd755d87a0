"""Both speech detectors behind one protocol, returning microsecond spans."""

from __future__ import annotations

import numpy as np

from speecheval.core.audio import Audio
from speecheval.core.timeline import Span
from speecheval.vad.base import Vad
from speecheval.vad.silero import SileroVad
from speecheval.vad.streaming import EnergyVad, VadSettings, detect_segments

from .audio_cases import RATE, join, silence, speech


def square(frames: int, level_db: float | None, frame: int) -> np.ndarray:
    """A +-A square wave of RMS exactly A (A from dBFS) as int16, or digital silence."""
    n = frames * frame
    if level_db is None:
        return np.zeros(n, dtype=np.int16)
    amplitude = round(32768 * 10 ** (level_db / 20))
    return (amplitude * np.where(np.arange(n) % 2 == 0, 1, -1)).astype(np.int16)


def test_both_engines_are_vads() -> None:
    assert isinstance(EnergyVad(), Vad)
    assert isinstance(SileroVad(), Vad)
    assert EnergyVad().identity()["engine"] == "energy"


def test_energy_segments_are_spans_rounded_to_the_microsecond() -> None:
    # 22050 Hz: a 10 ms frame is 220 samples (9977.3 us), so frame times are not whole
    # microseconds, and 50 ms of speech takes ceil(50 / 9.9773) = 6 frames. Loud from
    # frame 3 to 9, quiet for 30 frames (more than the 26 that 250 ms take), loud to the end.
    rate, frame = 22_050, 220
    pcm = np.concatenate([square(3, None, frame), square(6, -20, frame),
                          square(30, None, frame), square(10, -20, frame)])
    found = detect_segments(pcm, rate)
    # onset 3 * 220 / 22050 s = 29931.97 us -> 29932; offset 9 * 220 / 22050 = 89795.92
    # -> 89796; the second segment opens at frame 39 (389115.65 -> 389116) and is still
    # running when the track ends at frame 49 (488888.89 -> 488889)
    assert found == [Span(29_932, 89_796), Span(389_116, 488_889, open_at_end=True)]


def test_energy_vad_on_float_audio_equals_the_int16_track() -> None:
    rng = np.random.default_rng(7)
    frame = 160
    pieces = [square(int(rng.integers(1, 60)), level, frame)
              for level in rng.choice([-20.0, -44.0, -48.0, -60.0], size=40).tolist()]
    pcm = np.concatenate(pieces + [square(7, -20, frame)[:1000]])
    as_float = Audio(pcm.astype(np.float32) / 32768.0, RATE)
    settings = VadSettings(min_speech_ms=30.0, min_silence_ms=120.0)
    whole = EnergyVad(settings).segments(as_float)
    assert len(whole) >= 5  # the comparison below is not vacuous
    assert whole == detect_segments(pcm, RATE, settings)


def test_silero_marks_speech_running_to_the_end_of_the_file() -> None:
    vad: Vad = SileroVad()
    sentence = speech("a")
    cut = join(silence(300), sentence[: sentence.size // 2])  # ends mid-sentence
    found = vad.segments(Audio(cut, RATE))
    assert found and found[-1].open_at_end
    assert found[-1].end_us == round(cut.size / RATE * 1_000_000)
    done = vad.segments(Audio(join(silence(300), sentence, silence(800)), RATE))
    assert done and not any(segment.open_at_end for segment in done)
