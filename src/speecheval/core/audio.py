"""Audio reading and writing with exact sample counts.

Benchmarks compare sample counts against annotated durations (``round(T * rate)``), so
reading never trims, pads or resamples silently: callers get the file's own rate and
length, and resampling is an explicit, separate step.

Every audio file the project reads goes through :func:`read_mono` or :func:`audio_info`,
which refuse what would otherwise be scored as something it is not: a file cut short
(libsndfile quietly reads the frames that are there, so a WAV whose header says 1.2 s and
that holds 30 ms would pass as 30 ms of audio), a file with no frames, and, when decoding,
NaN or infinite samples (which later steps would turn into silence or garbage).
"""

from __future__ import annotations

import io
import os
import struct
from dataclasses import dataclass
from math import gcd
from pathlib import Path
from typing import BinaryIO

import numpy as np
from numpy.typing import NDArray

from .errors import InputError
from .output import atomic_write_bytes

Samples = NDArray[np.float32]


@dataclass(frozen=True)
class Audio:
    """Mono float32 samples in [-1, 1] at ``rate`` Hz."""

    samples: Samples
    rate: int

    @property
    def n_samples(self) -> int:
        return int(self.samples.shape[0])

    @property
    def duration_s(self) -> float:
        return self.n_samples / self.rate


@dataclass(frozen=True)
class AudioInfo:
    """Header facts of an audio file, read without decoding the samples."""

    rate: int
    channels: int
    n_samples: int
    subtype: str


_RIFF_ORDER = {b"RIFF": "<", b"RIFX": ">"}
_UNKNOWN_LENGTH = 0xFFFFFFFF
"""A data size that streaming writers put in a header they cannot rewrite: no length."""


def _wav_incomplete(handle: BinaryIO) -> str | None:
    """Why a file is not a whole audio file (empty, or a RIFF WAV cut short), or None for
    any other file, a complete one, or one whose header records no length; the handle's
    position is restored.

    Walks the chunks to ``data`` and compares its declared size with the bytes the file
    still holds. A file that ends inside its RIFF header, inside a chunk's 8-byte header or
    inside its ``fmt `` chunk is cut too (libsndfile would report a missing or malformed
    chunk, or read a cut ``data`` header as 0 frames). Any other chunk that runs past the
    end is left to libsndfile: a writer that leaves out a chunk's pad byte puts this walk
    one byte off, onto a size that means nothing, and libsndfile resynchronises there.
    """
    start = handle.tell()
    try:
        handle.seek(0, io.SEEK_END)
        file_size = handle.tell()
        handle.seek(0)
        header = handle.read(12)
        order = _RIFF_ORDER.get(header[:4])
        if order is None:
            return "audio file is empty (0 bytes)" if file_size == 0 else None
        ends = f"truncated audio: the file ends after {file_size} bytes"
        if len(header) < 12:
            return f"{ends}, inside its 12-byte RIFF header"
        if header[8:12] != b"WAVE":
            return None
        byte_rate = 0
        while True:
            offset = handle.tell()
            chunk = handle.read(8)
            if not chunk:
                return None
            if len(chunk) < 8:
                return f"{ends}, inside the 8-byte header of a chunk at byte {offset}"
            chunk_id, size = chunk[:4], struct.unpack(order + "I", chunk[4:])[0]
            body = offset + 8
            if chunk_id == b"data":
                present = file_size - body
                if size == _UNKNOWN_LENGTH or present >= size:
                    return None
                seconds = (f" ({size / byte_rate:.3f} s)", f" ({present / byte_rate:.3f} s)"
                           ) if byte_rate else ("", "")
                return (f"truncated audio: the header declares {size} bytes of samples"
                        f"{seconds[0]} but only {present}{seconds[1]} are present")
            if chunk_id == b"fmt ":
                if body + size > file_size:
                    return f"{ends}, inside its 'fmt ' chunk (bytes {offset} to {body + size})"
                if size >= 12:
                    byte_rate = struct.unpack(order + "I", handle.read(12)[8:12])[0]
            handle.seek(body + size + (size & 1))
    finally:
        handle.seek(start)


def _check_complete(source: str | BinaryIO, name: str | Path | None,
                    sample_id: str | None) -> None:
    """Refuse an empty file and a WAV cut short: one whose header declares more than the
    file holds, or that ends inside its header."""
    if isinstance(source, str):
        with open(source, "rb") as handle:
            problem = _wav_incomplete(handle)
    else:
        problem = _wav_incomplete(source)
    if problem is not None:
        raise InputError(problem, path=name, sample_id=sample_id)


def _open(path: str | Path | BinaryIO, name: str | Path | None, sample_id: str | None
          ) -> tuple[str | BinaryIO, str | Path | None]:
    """What libsndfile reads, and the name errors use (a path names itself)."""
    if isinstance(path, str | Path):
        source: str | BinaryIO = str(path)
        name = path if name is None else name
    else:
        source = path
    try:
        _check_complete(source, name, sample_id)
    except OSError as exc:
        raise InputError(f"cannot read audio: {exc}", path=name, sample_id=sample_id) from exc
    return source, name


def audio_info(path: str | Path, *, sample_id: str | None = None) -> AudioInfo:
    """Read the header of ``path``; raise InputError naming the file (and ``sample_id``)
    if it is unreadable, cut short or empty.

    A complete plain PCM WAV (the outputs a scorer reads by the hundred) is answered from
    its header by :func:`_plain_wav_info`, one read of its first bytes; anything else, or
    anything that walk does not recognise, goes through libsndfile, as before."""
    try:
        plain = _plain_wav_info(path)
    except OSError:
        plain = None  # libsndfile's path reports it as it always has
    if plain is not None:
        info = plain
    else:
        import soundfile as sf  # here: a run that reads only plain WAV headers never loads it

        source, name = _open(path, None, sample_id)
        try:
            # the open file's four fields, not sf.info: that also formats every
            # description and log string libsndfile has, five times the cost
            with sf.SoundFile(source) as opened:
                info = AudioInfo(rate=int(opened.samplerate), channels=int(opened.channels),
                                 n_samples=int(opened.frames), subtype=str(opened.subtype))
        except (RuntimeError, sf.LibsndfileError) as exc:
            raise InputError(f"cannot read audio: {exc}", path=name,
                             sample_id=sample_id) from exc
    if info.n_samples == 0:
        raise InputError("audio file holds no samples (0 frames)", path=path,
                         sample_id=sample_id)
    return info


_PLAIN_PCM = {16: "PCM_16", 24: "PCM_24", 32: "PCM_32"}
_HEADER_BYTES = 4096


def _plain_wav_info(path: str | Path) -> AudioInfo | None:
    """The header facts of a little-endian PCM WAV (16, 24 or 32 bits) whose chunks up to
    ``data`` lie in its first 4 KiB and whose ``data`` chunk is complete and a whole
    number of frames; None for any other file, which libsndfile then reads.

    Why: libsndfile's open costs about half a millisecond a file, most of it building
    strings nobody reads; a scorer checks the header of every output. The fields are
    those libsndfile reports for such a file (``tests/core/test_audio_header.py``
    compares them with libsndfile's on files it wrote and on files with extra chunks).
    """
    with open(path, "rb") as handle:
        head = handle.read(_HEADER_BYTES)
        file_size = os.fstat(handle.fileno()).st_size
    layout = _plain_wav_layout(head, file_size)
    return None if layout is None else layout[0]


def _plain_wav_layout(head: bytes, file_size: int) -> tuple[AudioInfo, int] | None:
    """:func:`_plain_wav_info` from a file's first bytes and its size, with the offset
    at which its samples start."""
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return None
    fmt: tuple[int, int, int, int, int, int] | None = None
    offset = 12
    while offset + 8 <= len(head):
        chunk_id, size = head[offset:offset + 4], int.from_bytes(head[offset + 4:offset + 8],
                                                                 "little")
        body = offset + 8
        if chunk_id == b"fmt ":
            if size not in (16, 18) or body + size > len(head):
                return None
            fmt = struct.unpack("<HHIIHH", head[body:body + 16])
        elif chunk_id == b"data":
            if fmt is None:
                return None
            tag, channels, rate, byte_rate, block_align, bits = fmt
            if (tag != 1 or bits not in _PLAIN_PCM or channels < 1 or rate < 1
                    or block_align != channels * bits // 8 or byte_rate != rate * block_align
                    or size == _UNKNOWN_LENGTH or body + size > file_size
                    or size % block_align):
                return None
            return AudioInfo(rate=rate, channels=channels, n_samples=size // block_align,
                             subtype=_PLAIN_PCM[bits]), body
        offset = body + size + (size & 1)
    return None


def read_mono(path: str | Path | BinaryIO, *, name: str | Path | None = None,
              sample_id: str | None = None, downmix: bool = False) -> Audio:
    """Read a mono audio file (or an open binary file) at its own rate.

    A multi-channel file is an InputError, unless ``downmix`` asks for the mean of its
    channels instead; a truncated or empty file, or one with a NaN or infinite sample, is
    an InputError naming the file (and ``sample_id``); ``name`` labels an open file in
    errors.
    """
    import soundfile as sf  # imported on first use, as everywhere in this module

    source, name = _open(path, name, sample_id)
    try:
        data, rate = sf.read(source, dtype="float32", always_2d=True)
    except (RuntimeError, sf.LibsndfileError) as exc:
        raise InputError(f"cannot read audio: {exc}", path=name, sample_id=sample_id) from exc
    if data.shape[1] != 1 and not downmix:
        raise InputError(f"expected mono audio, found {data.shape[1]} channels", path=name,
                         sample_id=sample_id)
    if data.shape[0] == 0:
        raise InputError("audio file holds no samples (0 frames)", path=name,
                         sample_id=sample_id)
    mono = data[:, 0] if data.shape[1] == 1 else data.mean(axis=1, dtype=np.float64)
    samples = np.ascontiguousarray(mono, dtype=np.float32)
    finite = np.isfinite(samples)
    if not finite.all():
        bad = np.flatnonzero(~finite)
        raise InputError(f"audio has {bad.size} non-finite samples (NaN or infinite), the "
                         f"first at sample {int(bad[0])} ({int(bad[0]) / rate:.3f} s)",
                         path=name, sample_id=sample_id)
    return Audio(samples=samples, rate=int(rate))


def decode_mono(data: bytes, *, name: str | Path, sample_id: str | None = None) -> Audio:
    """:func:`read_mono` of a file's bytes, ``name`` labelling it in errors.

    A plain 16-bit PCM mono WAV (what the scorers read by the hundred) is converted here:
    libsndfile reads 16-bit PCM as float by multiplying by 1/32768, which is exact in
    float32, so the samples are the same bits (``tests/core/test_audio.py`` checks every
    int16 value), at about a third of the cost. Any other file goes through libsndfile.
    """
    layout = _plain_wav_layout(data[:_HEADER_BYTES], len(data))
    if layout is None or layout[0].subtype != "PCM_16" or layout[0].channels != 1 \
            or layout[0].n_samples == 0:
        return read_mono(io.BytesIO(data), name=name, sample_id=sample_id)
    info, offset = layout
    pcm = np.frombuffer(data, dtype="<i2", count=info.n_samples, offset=offset)
    return Audio(samples=pcm.astype(np.float32) * np.float32(1 / 32768), rate=info.rate)


def encode_wav(samples: NDArray[np.floating] | NDArray[np.integer], rate: int,
               subtype: str = "PCM_16") -> bytes:
    """Encode samples (float in [-1, 1], or int16) as WAV bytes; 2-D input is (frames, channels)."""
    import soundfile as sf

    buffer = io.BytesIO()
    sf.write(buffer, np.asarray(samples), rate, format="WAV", subtype=subtype)
    return buffer.getvalue()


def write_wav(path: str | Path, samples: NDArray[np.floating] | NDArray[np.integer], rate: int,
              subtype: str = "PCM_16") -> None:
    """Write a WAV file atomically (float samples are clipped by libsndfile on PCM_16)."""
    atomic_write_bytes(path, encode_wav(samples, rate, subtype))


def resample(samples: Samples, rate_in: int, rate_out: int) -> Samples:
    """Polyphase resampling by the exact rational factor ``rate_out / rate_in``.

    The output has ``ceil(n * rate_out / rate_in)`` samples.

    >>> resample(np.zeros(480, dtype=np.float32), 48000, 16000).shape
    (160,)
    """
    if rate_in == rate_out:
        return samples
    from scipy.signal import resample_poly  # here: scipy.signal takes half a second to import

    common = gcd(rate_in, rate_out)
    out = resample_poly(samples, rate_out // common, rate_in // common)
    return np.asarray(out, dtype=np.float32)
