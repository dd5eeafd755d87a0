"""Audio reading keeps the file's own rate and exact sample count."""

from __future__ import annotations

import io
import math
import struct
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from speecheval.core.audio import (
    audio_info,
    decode_mono,
    encode_wav,
    read_mono,
    resample,
    write_wav,
)
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


def sine(hz: float, amplitude: float, rate: int, n: int) -> np.ndarray:
    return amplitude * np.sin(2 * np.pi * hz * np.arange(n) / rate)


def test_resample_length() -> None:
    # 24 kHz -> 16 kHz is 2/3: ceil(1001 * 2 / 3) = 668 samples
    assert resample(np.zeros(1001, np.float32), 24000, 16000).shape == (668,)


def wav_bytes(samples: bytes, *, channels: int = 1, rate: int = 16000, bits: int = 16,
              tag: int = 1, declared: int | None = None, extra: bytes = b"",
              riff: bytes = b"RIFF") -> bytes:
    """A WAV file written field by field (not by libsndfile), so each test can lie in it.

    ``declared`` is the data chunk's size field (default: the bytes given); ``extra`` is a
    chunk placed between ``fmt `` and ``data``; ``riff`` b"RIFX" writes big-endian fields.
    """
    order = "<" if riff == b"RIFF" else ">"
    block = channels * bits // 8
    fmt = struct.pack(order + "HHIIHH", tag, channels, rate, rate * block, block, bits)
    size = len(samples) if declared is None else declared
    body = (b"WAVE" + b"fmt " + struct.pack(order + "I", len(fmt)) + fmt + extra
            + b"data" + struct.pack(order + "I", size) + samples)
    return riff + struct.pack(order + "I", len(body)) + body


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_hand_written_wav_reads_exactly(tmp_path: Path) -> None:
    # An odd-sized LIST chunk (5 bytes + 1 pad byte) before the data must be skipped.
    extra = b"LIST" + struct.pack("<I", 5) + b"INFOx" + b"\0"
    path = write(tmp_path, "ok.wav", wav_bytes(struct.pack("<3h", 0, 16384, -32768),
                                               extra=extra))
    audio = read_mono(path)
    assert audio.samples.tolist() == [0.0, 0.5, -1.0]   # 16384 / 32768, -32768 / 32768
    assert audio_info(path).n_samples == 3


@pytest.mark.parametrize("riff", [b"RIFF", b"RIFX"])
def test_truncated_wav_is_refused(tmp_path: Path, riff: bytes) -> None:
    # The header declares 1.2 s at 16 kHz PCM16: 19200 frames = 38400 bytes; 30 ms
    # (480 frames = 960 bytes) are present. libsndfile alone reads the 480 frames.
    order = "<" if riff == b"RIFF" else ">"
    path = write(tmp_path, "cut.wav", wav_bytes(struct.pack(order + "480h", *range(480)),
                                                declared=38400, riff=riff))
    assert sf.info(str(path)).frames == 480
    for reader in (read_mono, audio_info):
        with pytest.raises(InputError) as info:
            reader(path)
        assert str(info.value) == (
            f"{path}: truncated audio: the header declares 38400 bytes of samples "
            "(1.200 s) but only 960 (0.030 s) are present")


def test_truncated_wav_in_memory_is_refused_with_its_name(tmp_path: Path) -> None:
    data = wav_bytes(struct.pack("<480h", *range(480)), declared=38400)
    handle = io.BytesIO(data)
    with pytest.raises(InputError, match="truncated audio") as info:
        read_mono(handle, name="sample/output.wav")
    assert str(info.value).startswith("sample/output.wav: ")


def test_unknown_length_header_reads_to_the_end(tmp_path: Path) -> None:
    # Streaming writers leave 0xFFFFFFFF as the data size: no length was recorded.
    path = write(tmp_path, "stream.wav", wav_bytes(struct.pack("<4h", 1, 2, 3, 4),
                                                   declared=0xFFFFFFFF))
    assert read_mono(path).n_samples == 4


@pytest.mark.parametrize("values,first", [
    ([0.25, math.nan, 0.5], 1),
    ([0.25, 0.5, math.inf], 2),
    ([-math.inf, 0.0, 0.0], 0),
    ([math.nan] * 4, 0),         # all NaN: it used to become silence and be scored
])
def test_non_finite_float_samples_are_refused(tmp_path: Path, values: list[float],
                                              first: int) -> None:
    # WAVE_FORMAT_IEEE_FLOAT (tag 3), 32-bit little-endian floats.
    path = write(tmp_path, "f.wav", wav_bytes(struct.pack(f"<{len(values)}f", *values),
                                              bits=32, tag=3))
    bad = sum(1 for v in values if not math.isfinite(v))
    with pytest.raises(InputError) as info:
        read_mono(path)
    assert str(info.value) == (f"{path}: audio has {bad} non-finite samples (NaN or "
                               f"infinite), the first at sample {first} "
                               f"({first / 16000:.3f} s)")


def test_finite_float_samples_read(tmp_path: Path) -> None:
    path = write(tmp_path, "f.wav", wav_bytes(struct.pack("<2f", 0.25, -0.75), bits=32, tag=3))
    assert read_mono(path).samples.tolist() == [0.25, -0.75]


def test_zero_frame_wav_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "empty.wav", wav_bytes(b""))
    for reader in (read_mono, audio_info):
        with pytest.raises(InputError) as info:
            reader(path)
        assert str(info.value) == f"{path}: audio file holds no samples (0 frames)"


@pytest.mark.parametrize(("rate_in", "rate_out", "n_in", "n_out"), [
    (24000, 16000, 24000, 16000),   # 1 s: 24000 * 2 / 3
    (16000, 48000, 16000, 48000),   # 1 s: 16000 * 3
    (22050, 16000, 22050, 16000),   # 1 s: 22050 * 320 / 441
    (24000, 16000, 24001, 16001),   # ceil(24001 * 2 / 3) = ceil(16000.67)
])
def test_resampled_sine_is_the_same_sine_at_the_new_rate(rate_in: int, rate_out: int,
                                                        n_in: int, n_out: int) -> None:
    # A 440 Hz sine of amplitude 0.5 must come out as 0.5 sin(2 pi 440 n / rate_out): same
    # frequency and amplitude on the same timeline. Away from the ends (where the filter
    # sees the signal start and stop) every sample is within 0.001 of that (SciPy's
    # polyphase filter gives about 0.0004), the RMS is
    # 0.5 / sqrt(2) = 0.353553 within 0.5 %, and the spectrum peaks at 440 Hz (1 s of
    # audio: 1 Hz bins).
    out = resample(sine(440, 0.5, rate_in, n_in).astype(np.float32), rate_in, rate_out)
    assert out.dtype == np.float32 and out.shape == (n_out,)
    middle = slice(rate_out // 10, n_out - rate_out // 10)
    expected = sine(440, 0.5, rate_out, n_out)
    assert np.max(np.abs(out[middle] - expected[middle])) < 0.001
    assert np.sqrt(np.mean(out[middle].astype(np.float64) ** 2)) == pytest.approx(
        0.5 / np.sqrt(2), rel=0.005)
    spectrum = np.abs(np.fft.rfft(out[:rate_out]))
    assert int(np.argmax(spectrum)) == 440


def test_downsampling_removes_what_the_new_rate_cannot_hold() -> None:
    # 10 kHz at 24 kHz is above the 8 kHz Nyquist limit of 16 kHz: the anti-aliasing
    # filter must remove it rather than fold it to 16 - 10 = 6 kHz. Away from the ends
    # the RMS left is below 0.001, under 0.3 % of the input's 0.354 (about 0.0005 here).
    out = resample(sine(10_000, 0.5, 24000, 24000).astype(np.float32), 24000, 16000)
    assert np.sqrt(np.mean(out[1600:-1600].astype(np.float64) ** 2)) < 0.001


def test_same_rate_is_returned_unchanged() -> None:
    samples = sine(440, 0.5, 16000, 100).astype(np.float32)
    assert resample(samples, 16000, 16000) is samples


def test_audio_info_reads_the_header_fields(tmp_path: Path) -> None:
    """Rate, channels, frames and subtype as written; an empty or non-audio file is an
    InputError naming it."""
    path = tmp_path / "s.wav"
    sf.write(path, np.zeros((1234, 2)), 22050, subtype="PCM_24")
    info = audio_info(path, sample_id="a")
    assert (info.rate, info.channels, info.n_samples, info.subtype) == (22050, 2, 1234,
                                                                          "PCM_24")
    sf.write(tmp_path / "empty.wav", np.zeros((0, 1)), 16000)
    with pytest.raises(InputError, match="holds no samples") as empty:
        audio_info(tmp_path / "empty.wav", sample_id="a")
    assert empty.value.sample_id == "a"
    (tmp_path / "text.wav").write_text("not audio")
    with pytest.raises(InputError, match="cannot read audio"):
        audio_info(tmp_path / "text.wav")


def test_decoded_pcm16_bytes_are_libsndfiles_samples_for_every_value() -> None:
    """``decode_mono`` converts plain 16-bit mono WAVs itself: same bits as libsndfile."""
    every = np.arange(-32768, 32768, dtype=np.int16)
    extra = b"LIST" + struct.pack("<I", 5) + b"INFOx" + b"\0"  # a chunk before the data
    data = wav_bytes(every.astype("<i2").tobytes(), rate=8000, extra=extra)
    mine = decode_mono(data, name="every.wav")
    theirs = read_mono(io.BytesIO(data))
    assert mine.rate == theirs.rate == 8000
    assert mine.samples.dtype == np.float32
    assert np.array_equal(mine.samples.view(np.int32), theirs.samples.view(np.int32))
    assert mine.samples[[0, 32768, -1]].tolist() == [-1.0, 0.0, 32767 / 32768]


@pytest.mark.parametrize("kind", ["stereo", "pcm24", "cut", "empty", "unknown length"])
def test_other_wav_bytes_decode_as_libsndfile_reads_them(kind: str) -> None:
    if kind == "stereo":
        data = encode_wav(np.zeros((4, 2), dtype=np.int16), 16000)
    elif kind == "pcm24":
        data = encode_wav(np.array([0.5, -0.25], dtype=np.float32), 16000, "PCM_24")
    elif kind == "cut":
        data = wav_bytes(struct.pack("<480h", *range(480)), declared=38400)
    elif kind == "empty":
        data = wav_bytes(b"")
    else:
        data = wav_bytes(struct.pack("<4h", 1, 2, 3, 4), declared=0xFFFFFFFF)
    try:
        expected: object = read_mono(io.BytesIO(data), name="x.wav").samples.tolist()
    except InputError as exc:
        expected = str(exc)
    try:
        found: object = decode_mono(data, name="x.wav").samples.tolist()
    except InputError as exc:
        found = str(exc)
    assert found == expected
    assert kind != "pcm24" or found == [0.5, -0.25]


def _cut_header_problem(n: int) -> str | None:
    """What the reader says of the first ``n`` bytes of a 44-byte PCM16 mono header
    followed by 1 s at 16 kHz: bytes 0-12 are the RIFF header, 12-36 the ``fmt `` chunk
    (8-byte chunk header + 16 bytes), 36-44 the ``data`` chunk's header, which declares
    16000 frames * 2 bytes = 32000 bytes (1.000 s at 32000 bytes a second). None where
    libsndfile's own refusal stands (no RIFF id yet; the file ends between two chunks)."""
    ends = f"truncated audio: the file ends after {n} bytes"
    if n == 0:
        return "audio file is empty (0 bytes)"
    if n < 4 or n in (12, 36):
        return None
    if n < 12:
        return f"{ends}, inside its 12-byte RIFF header"
    if n < 20:
        return f"{ends}, inside the 8-byte header of a chunk at byte 12"
    if n < 36:
        return f"{ends}, inside its 'fmt ' chunk (bytes 12 to 36)"
    if n < 44:
        return f"{ends}, inside the 8-byte header of a chunk at byte 36"
    return ("truncated audio: the header declares 32000 bytes of samples (1.000 s) but only "
            "0 (0.000 s) are present")


@pytest.mark.parametrize("n", range(45))
def test_a_header_cut_at_any_byte_is_refused(tmp_path: Path, n: int) -> None:
    # A file cut inside its fmt chunk (20-35 bytes) raised struct.error from the chunk
    # walk; one cut inside the data chunk's header (37-43) read as 0 frames.
    whole = encode_wav(np.zeros(16000, np.int16), 16000)
    assert (whole[:4], whole[12:16], whole[36:40], len(whole)) == (
        b"RIFF", b"fmt ", b"data", 44 + 32000)
    path = write(tmp_path, "cut.wav", whole[:n])
    expected = _cut_header_problem(n)
    readers = (lambda: read_mono(path, sample_id="s1"),
               lambda: audio_info(path, sample_id="s1"),
               lambda: decode_mono(whole[:n], name=path, sample_id="s1"))
    for reader in readers:
        with pytest.raises(InputError) as info:
            reader()
        assert (info.value.path, info.value.sample_id) == (str(path), "s1")
        if expected is None:
            no_data = "No 'data' chunk marker" if n in (12, 36) else "Format not recognised"
            assert info.value.problem.startswith("cannot read audio: ")
            assert info.value.problem.endswith(f"{no_data}.")
        else:
            assert str(info.value) == f"sample s1: {path}: {expected}"
