"""Audio reading keeps the file's own rate and exact sample count."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from speecheval.core.audio import audio_info, read_mono, resample, write_wav
from speecheval.core.errors import InputError


@pytest.mark.parametrize("rate,n", [(8000, 1), (16000, 75521), (22050, 333), (48000, 48000)])
def test_round_trip_keeps_rate_and_length(tmp_path: Path, rate: int, n: int) -> None:
    samples = (np.arange(n) % 100 - 50).astype(np.int16)
    write_wav(tmp_path / "a.wav", samples, rate)
    audio = read_mono(tmp_path / "a.wav")
    assert (audio.rate, audio.n_samples) == (rate, n)
    assert audio_info(tmp_path / "a.wav").n_samples == n
    assert np.array_equal(np.round(audio.samples * 32768).astype(np.int16), samples)


def test_stereo_and_garbage_are_input_errors(tmp_path: Path) -> None:
    write_wav(tmp_path / "s.wav", np.zeros((10, 2), np.int16), 16000)
    with pytest.raises(InputError, match="2 channels"):
        read_mono(tmp_path / "s.wav")
    (tmp_path / "g.wav").write_bytes(b"not audio")
    with pytest.raises(InputError, match="cannot read audio") as info:
        read_mono(tmp_path / "g.wav")
    assert "g.wav" in str(info.value)


def test_resample_length() -> None:
    # 24 kHz -> 16 kHz is 2/3: ceil(1001 * 2 / 3) = 668 samples
    assert resample(np.zeros(1001, np.float32), 24000, 16000).shape == (668,)
