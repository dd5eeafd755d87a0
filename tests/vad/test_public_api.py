"""speecheval.vad.segments: the public function gives SileroVad's segments for arrays at
any rate (resampled as the commands resample), int16 samples and files, and names bad
input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from speecheval import vad
from speecheval.core.audio import Audio, write_wav
from speecheval.core.errors import InputError
from speecheval.vad.silero import SileroSettings, SileroVad

from .audio_cases import RATE, join, silence, speech


@pytest.fixture(scope="module")
def utterance() -> np.ndarray:
    return join(silence(800), speech("a"), silence(800))


def test_the_public_name_is_listed() -> None:
    assert vad.__all__ == ["segments"]


@pytest.mark.parametrize("rate", [16_000, 8_000, 48_000, 44_100])
def test_segments_are_silero_vads_at_every_rate(utterance: np.ndarray, rate: int) -> None:
    from speecheval.core.audio import resample

    samples = utterance if rate == RATE else resample(utterance, RATE, rate)
    found = vad.segments(samples, rate)
    assert found == SileroVad().segments(Audio(samples, rate))
    assert found and 0.7 <= found[0].start_s <= 0.95


def test_int16_samples_and_files_give_the_same_segments(utterance: np.ndarray,
                                                       tmp_path: Path) -> None:
    as_int16 = np.round(utterance * 32767).astype(np.int16)
    path = tmp_path / "a.wav"
    write_wav(path, as_int16, RATE)
    from_file = vad.segments(path)
    assert from_file == vad.segments(as_int16, RATE) == vad.segments(str(path))
    as_float = vad.segments(utterance, RATE)
    assert len(from_file) == len(as_float)
    edges = [edge for s in from_file for edge in (s.start_s, s.end_s)]
    assert edges == pytest.approx([e for s in as_float for e in (s.start_s, s.end_s)], abs=0.05)


def test_settings_change_the_segments(utterance: np.ndarray) -> None:
    assert vad.segments(utterance, RATE, settings=SileroSettings(threshold=0.999)) != \
        vad.segments(utterance, RATE)


@pytest.mark.parametrize(("audio", "sr", "message"), [
    (np.zeros((2, 16000), np.float32), 16000, r"expected mono samples \(a 1-D array\)"),
    (np.zeros(16000, np.float32), 0, r"sr must be a positive whole number of Hz, got 0"),
    (np.zeros(16000, np.float32), None, r"sr must be a positive whole number of Hz, got None"),
    (np.zeros(16000, np.int32), 16000, r"expected float or int16 samples, got int32"),
    (np.full(16000, np.nan, np.float32), 16000, r"non-finite samples"),
])
def test_bad_input_is_named(audio: np.ndarray, sr: int | None, message: str) -> None:
    with pytest.raises(InputError, match=message):
        vad.segments(audio, sr)


def test_a_file_has_its_own_rate(tmp_path: Path) -> None:
    path = tmp_path / "a.wav"
    write_wav(path, np.zeros(1600, np.float32), RATE)
    with pytest.raises(InputError, match="give sr only with an array of samples"):
        vad.segments(path, RATE)
