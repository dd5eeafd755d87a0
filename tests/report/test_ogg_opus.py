"""Page audio as Ogg Opus: the same samples give the same bytes, and the bytes decode."""

from __future__ import annotations

import io
import struct

import numpy as np
import soundfile as sf

from speecheval.report.ogg_opus import SERIAL, encode_opus, with_serial

RATE = 16000


def _speechlike() -> np.ndarray:
    t = np.arange(RATE * 3) / RATE
    tone = 0.3 * np.sin(2 * np.pi * 220 * t) * np.sin(2 * np.pi * 1.5 * t)
    noise = 0.01 * np.random.default_rng(0).standard_normal(len(t))
    return (tone + noise).astype(np.float32)


def test_the_same_samples_give_the_same_bytes_and_decode() -> None:
    samples = _speechlike()
    first, second = encode_opus(samples, RATE), encode_opus(samples, RATE)
    assert first == second and first[:4] == b"OggS"
    assert struct.unpack_from("<I", first, 14)[0] == SERIAL
    decoded, rate = sf.read(io.BytesIO(first), dtype="float32")
    assert rate == RATE and len(decoded) == len(samples)
    assert np.corrcoef(decoded, samples)[0, 1] > 0.95
    # about 24 kbit/s: 3 s of audio in 6 to 12 kB
    assert 6_000 < len(first) < 12_000


def test_the_page_checksum_matches_libsndfiles_own() -> None:
    # Setting each page's serial number back to the one libsndfile chose must give back
    # its bytes exactly, checksums included: an independent check of ogg_crc.
    buffer = io.BytesIO()
    with sf.SoundFile(buffer, "w", samplerate=RATE, channels=1, format="OGG",
                      subtype="OPUS") as handle:
        handle.write(_speechlike())
    raw = buffer.getvalue()
    assert with_serial(raw, struct.unpack_from("<I", raw, 14)[0]) == raw
    assert with_serial(raw) != raw
