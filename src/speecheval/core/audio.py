"""Audio reading and writing with exact sample counts.

Benchmarks compare sample counts against annotated durations (``round(T * rate)``), so
reading never trims, pads or resamples silently: callers get the file's own rate and
length, and resampling is an explicit, separate step.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from math import gcd
from pathlib import Path
from typing import BinaryIO

import numpy as np
import soundfile as sf
from numpy.typing import NDArray
from scipy.signal import resample_poly

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


def audio_info(path: str | Path) -> AudioInfo:
    """Read the header of ``path``; raise InputError naming the file if it is unreadable."""
    try:
        info = sf.info(str(path))
    except (RuntimeError, sf.LibsndfileError) as exc:
        raise InputError(f"cannot read audio: {exc}", path=path) from exc
    return AudioInfo(rate=int(info.samplerate), channels=int(info.channels),
                     n_samples=int(info.frames), subtype=str(info.subtype))


def read_mono(path: str | Path | BinaryIO, *, name: str | Path | None = None,
              downmix: bool = False) -> Audio:
    """Read a mono audio file (or an open binary file) at its own rate.

    A multi-channel file is an InputError, unless ``downmix`` asks for the mean of its
    channels instead; ``name`` labels an open file in errors.
    """
    source = str(path) if isinstance(path, str | Path) else path
    if name is None and isinstance(path, str | Path):
        name = path
    try:
        data, rate = sf.read(source, dtype="float32", always_2d=True)
    except (RuntimeError, sf.LibsndfileError) as exc:
        raise InputError(f"cannot read audio: {exc}", path=name) from exc
    if data.shape[1] != 1 and not downmix:
        raise InputError(f"expected mono audio, found {data.shape[1]} channels", path=name)
    mono = data[:, 0] if data.shape[1] == 1 else data.mean(axis=1, dtype=np.float64)
    return Audio(samples=np.ascontiguousarray(mono, dtype=np.float32), rate=int(rate))


def encode_wav(samples: NDArray[np.floating] | NDArray[np.integer], rate: int,
               subtype: str = "PCM_16") -> bytes:
    """Encode samples (float in [-1, 1], or int16) as WAV bytes; 2-D input is (frames, channels)."""
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
    common = gcd(rate_in, rate_out)
    out = resample_poly(samples, rate_out // common, rate_in // common)
    return np.asarray(out, dtype=np.float32)
