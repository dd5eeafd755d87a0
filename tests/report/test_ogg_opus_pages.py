"""Opus in Ogg for pages: the same audio gives the same bytes, libogg accepts every
rewritten page (a wrong checksum is refused), and the audio survives."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest
import soundfile

from speecheval.report.ogg_opus import MIME, SERIAL, encode, opus_available, stereo

pytestmark = pytest.mark.skipif(not opus_available(), reason="libsndfile without Opus")


def _tone(seconds: float, hz: float) -> np.ndarray:
    t = np.arange(round(16_000 * seconds)) / 16_000
    return (0.3 * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def test_same_audio_same_bytes_and_libogg_reads_them() -> None:
    audio = stereo(_tone(2.0, 440.0), _tone(1.5, 220.0))
    first, mime = encode(audio, 16_000)
    second, _ = encode(audio, 16_000)
    assert mime == MIME and first == second
    assert first[14:18] == struct.pack("<I", SERIAL)
    decoded, rate = soundfile.read(io.BytesIO(first), dtype="float32")
    assert rate == 16_000 and decoded.shape == (32_000, 2)
    # the right channel is silent after its 1.5 s; the left keeps its level: a 0.3 sine
    # has an RMS of 0.3 / sqrt(2) = 0.212 (within 10% through the lossy codec)
    assert np.abs(decoded[25_000:31_000, 1]).max() < 0.01
    rms = float(np.sqrt(np.mean(decoded[8_000:24_000, 0] ** 2)))
    assert rms == pytest.approx(0.3 / np.sqrt(2), rel=0.1)
    # mono at the page's Opus setting: about 24 kbit/s, not 256 (WAV)
    mono, _ = encode(_tone(2.0, 440.0), 16_000)
    assert len(mono) * 8 / 2.0 < 48_000


def test_a_broken_checksum_is_refused() -> None:
    data = bytearray(encode(_tone(1.0, 440.0), 16_000)[0])
    data[-10] ^= 0xFF  # inside the last page's audio: its CRC no longer matches
    with pytest.raises(soundfile.LibsndfileError, match="malformed"):
        soundfile.read(io.BytesIO(bytes(data)), dtype="float32")


def test_rates_opus_does_not_take_are_resampled_to_16_khz() -> None:
    # 22.05 kHz is not an Opus rate: the clip is resampled to 16 kHz, so its 11025 frames
    # (11025 / 22050 = 0.5 s) decode as 0.5 * 16000 = 8000 frames
    data, mime = encode(_tone(1.0, 440.0)[:11_025], 22_050)
    decoded, rate = soundfile.read(io.BytesIO(data), dtype="float32")
    assert mime == MIME and rate == 16_000 and decoded.shape == (8_000,)
