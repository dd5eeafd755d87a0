"""audio_info's header reader for plain PCM WAV agrees with libsndfile, and hands every
other file to libsndfile.

The reference is libsndfile itself (``soundfile.SoundFile``), an independent reader: each
file here is read both ways and the four fields must be equal.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from speecheval.core import audio
from speecheval.core.audio import AudioInfo, audio_info
from speecheval.core.errors import InputError


def libsndfile_info(path: Path) -> AudioInfo:
    with sf.SoundFile(str(path)) as opened:
        return AudioInfo(rate=int(opened.samplerate), channels=int(opened.channels),
                         n_samples=int(opened.frames), subtype=str(opened.subtype))


def chunk(name: bytes, body: bytes) -> bytes:
    """One RIFF chunk, padded to an even length as the format requires."""
    return name + struct.pack("<I", len(body)) + body + (b"\0" if len(body) % 2 else b"")


def wav_bytes(chunks: list[bytes]) -> bytes:
    body = b"WAVE" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def fmt(channels: int, rate: int, bits: int, extra: bytes = b"", tag: int = 1) -> bytes:
    align = channels * bits // 8
    return chunk(b"fmt ", struct.pack("<HHIIHH", tag, channels, rate, rate * align, align,
                                      bits) + extra)


@pytest.mark.parametrize(("subtype", "channels", "rate", "frames"), [
    ("PCM_16", 1, 16_000, 480_000), ("PCM_16", 2, 44_100, 7), ("PCM_24", 1, 8_000, 333),
    ("PCM_32", 1, 48_000, 1),
])
def test_files_libsndfile_writes_read_the_same(tmp_path: Path, subtype: str, channels: int,
                                               rate: int, frames: int) -> None:
    path = tmp_path / "a.wav"
    sf.write(str(path), np.zeros((frames, channels), dtype=np.float32), rate,
             subtype=subtype, format="WAV")
    assert audio_info(path) == libsndfile_info(path)
    assert audio_info(path).n_samples == frames
    # the header reader answers for what libsndfile writes plainly (mono 16 bit, the
    # outputs a tree holds) and otherwise either agrees or declines
    assert audio._plain_wav_info(path) in ((libsndfile_info(path),) if channels == 1 and
                                           subtype == "PCM_16" else
                                           (None, libsndfile_info(path)))


@pytest.mark.parametrize("chunks", [
    # a LIST chunk of odd length (padded) between fmt and data, and one after data
    [fmt(1, 16_000, 16), chunk(b"LIST", b"INFOabc"), chunk(b"data", b"\1\0" * 50),
     chunk(b"LIST", b"INFOx")],
    # an 18-byte fmt chunk (cbSize = 0), and a fact chunk before data
    [fmt(1, 16_000, 16, extra=b"\0\0"), chunk(b"fact", struct.pack("<I", 3)),
     chunk(b"data", b"\0\0" * 3)],
    [fmt(2, 22_050, 24), chunk(b"data", bytes(6 * 5))],
])
def test_hand_built_plain_wavs_read_as_libsndfile_reads_them(tmp_path: Path,
                                                             chunks: list[bytes]) -> None:
    path = tmp_path / "b.wav"
    path.write_bytes(wav_bytes(chunks))
    assert audio._plain_wav_info(path) is not None  # the header reader answered
    assert audio_info(path) == libsndfile_info(path)


@pytest.mark.parametrize("chunks", [
    [fmt(1, 16_000, 32, tag=3), chunk(b"data", bytes(8))],           # float
    [fmt(1, 16_000, 8), chunk(b"data", bytes(8))],                   # unsigned 8 bit
    [chunk(b"data", bytes(8)), fmt(1, 16_000, 16)],                  # data before fmt
    [fmt(1, 16_000, 16), chunk(b"data", bytes(7))],                  # half a frame
])
def test_anything_else_goes_to_libsndfile(tmp_path: Path, chunks: list[bytes]) -> None:
    path = tmp_path / "c.wav"
    path.write_bytes(wav_bytes(chunks))
    assert audio._plain_wav_info(path) is None


def test_a_truncated_or_empty_wav_is_still_refused(tmp_path: Path) -> None:
    whole = wav_bytes([fmt(1, 16_000, 16), chunk(b"data", bytes(3200))])
    cut = tmp_path / "cut.wav"
    cut.write_bytes(whole[:-1000])
    assert audio._plain_wav_info(cut) is None
    with pytest.raises(InputError, match="truncated audio"):
        audio_info(cut, sample_id="s1")
    empty = tmp_path / "empty.wav"
    empty.write_bytes(wav_bytes([fmt(1, 16_000, 16), chunk(b"data", b"")]))
    with pytest.raises(InputError, match=r"holds no samples \(0 frames\)") as info:
        audio_info(empty, sample_id="s1")
    assert "empty.wav" in str(info.value) and "s1" in str(info.value)
    with pytest.raises(InputError, match="cannot read audio"):
        audio_info(tmp_path / "missing.wav")
