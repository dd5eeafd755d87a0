"""The deterministic input adapter: every system gets the same 16 kHz mono 16-bit PCM.

The spec (长音频三轨协议) allows a deterministic container conversion as long as the
source and derived SHA-256, the decoder and its settings and the adapter version are kept,
and every system gets the same frozen PCM. The source is decoded by libsndfile, its
channels averaged, resampled by the exact rational factor to 16 kHz and written as 16-bit
PCM; the integer samples of that file are the input from then on. Crops (the gold window,
the chunks) are cut from those integers and written back as integers, so no float round
trip changes a sample between what is hashed and what a system receives.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf
from numpy.typing import NDArray

from ...core.audio import Samples, audio_info, encode_wav, read_mono, resample
from ...core.hashing import sha256_bytes, sha256_file
from ...core.provenance import package_version

RATE = 16_000
ADAPTER_VERSION = "pcm16k-mono/1"
_FULL_SCALE = 32768.0


@dataclass(frozen=True)
class Pcm:
    """16-bit mono samples at :data:`RATE`: what every system is given."""

    samples: NDArray[np.int16]

    @property
    def duration_s(self) -> float:
        return int(self.samples.size) / RATE

    def floats(self) -> Samples:
        """The samples as float32 in [-1, 1) (divided by 32768, as libsndfile reads them)."""
        return (self.samples.astype(np.float32) / np.float32(_FULL_SCALE)).astype(np.float32)

    def wav(self) -> bytes:
        """A 16 kHz mono 16-bit WAV holding exactly these samples."""
        return encode_wav(self.samples, RATE)

    def crop(self, start: int, end: int) -> Pcm:
        """Samples ``start`` to ``end`` (indices at :data:`RATE`)."""
        return Pcm(self.samples[start:end])


def settings() -> dict[str, Any]:
    """The adapter's identity: decoder, versions and every setting of the conversion."""
    return {
        "adapter_version": ADAPTER_VERSION,
        "decoder": {"library": "libsndfile", "version": sf.__libsndfile_version__,
                    "soundfile": package_version("soundfile")},
        "channels": "mean of all channels (float64), as float32",
        "resampler": {"name": "scipy.signal.resample_poly, exact rational factor, default "
                              "Kaiser window; none when the source is at 16 kHz",
                      "scipy": package_version("scipy")},
        "output": {"rate": RATE, "channels": 1, "format": "WAV PCM_16, libsndfile float to "
                                                          "int conversion (clipped)"},
    }


def check_source(path: Path, sample_id: str) -> float:
    """Refuse, before anything is written, a source libsndfile cannot read or that is empty;
    its duration in seconds otherwise."""
    info = audio_info(path, sample_id=sample_id)
    return info.n_samples / info.rate


def decode(source: Path, sample_id: str, target: Path) -> dict[str, Any]:
    """Decode ``source`` into the WAV ``target``; return the input identity."""
    info = audio_info(source, sample_id=sample_id)
    audio = read_mono(source, sample_id=sample_id, downmix=True)
    samples = resample(audio.samples, audio.rate, RATE)
    data = encode_wav(samples, RATE)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return {
        "sample": sample_id,
        "source": {"path": str(source.resolve()), "sha256": sha256_file(source),
                   "rate": info.rate, "channels": info.channels, "frames": info.n_samples,
                   "subtype": info.subtype},
        "derived": _derived(target.name, data, int(samples.size)),
        "settings": settings(),
    }


def load(path: Path) -> Pcm:
    """The integer samples of a WAV written by :func:`decode`."""
    data, rate = sf.read(str(path), dtype="int16", always_2d=False)
    if rate != RATE or data.ndim != 1:
        raise ValueError(f"{path} is not a {RATE} Hz mono input file")
    return Pcm(np.ascontiguousarray(data, dtype=np.int16))


def write_crop(pcm: Pcm, start_s: float, end_s: float, target: Path,
               parent_sha256: str) -> tuple[Pcm, dict[str, Any]]:
    """Cut ``[start_s, end_s)`` (to the nearest samples) into ``target``; its identity."""
    start, end = round(start_s * RATE), min(round(end_s * RATE), pcm.samples.size)
    crop = pcm.crop(start, end)
    data = crop.wav()
    target.write_bytes(data)
    return crop, {"parent_sha256": parent_sha256, "start_s": start_s, "end_s": end_s,
                  "start_sample": start, "end_sample": end,
                  "derived": _derived(target.name, data, int(crop.samples.size))}


def _derived(name: str, data: bytes, frames: int) -> dict[str, Any]:
    return {"file": name, "sha256": sha256_bytes(data), "rate": RATE, "samples": frames,
            "seconds": frames / RATE}
