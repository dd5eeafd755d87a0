"""A capture's ``received.wav``, read a piece at a time where the playout needs it.

A capture may hold far more audio than the window an export plays: an agent that
flooded its client, recorded under a high ``--max-received-ratio``. Read whole, the file
took several times its size in memory (float32 samples, then float64 for the PCM16
conversion). The playout needs only the pieces that play inside ``[0, T]``, at most the
window's length in all, so they are read from where they lie; each piece gets the same
conversion a whole read gives, so the tree's bytes do not change.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core.audio import audio_info
from ...core.errors import InputError


@dataclass(frozen=True)
class ReceivedAudio:
    """An open received.wav: its rate, its length and :meth:`read`."""

    path: Path
    sample_id: str
    rate: int
    n_samples: int
    handle: Any   # soundfile.SoundFile

    def read(self, offset: int, length: int) -> NDArray[np.int16]:
        """Samples ``[offset, offset + length)`` as PCM16 (a PCM16 file's own integers)."""
        if offset < 0 or offset + length > self.n_samples:
            raise InputError(f"the trace places samples {offset} to {offset + length} of "
                             f"received.wav, which holds {self.n_samples}", path=self.path,
                             sample_id=self.sample_id)
        self.handle.seek(offset)
        block = self.handle.read(length, dtype="float32", always_2d=True)[:, 0]
        if not np.isfinite(block).all():
            first = offset + int(np.flatnonzero(~np.isfinite(block))[0])
            raise InputError(f"audio has non-finite samples (NaN or infinite), the first "
                             f"at sample {first}", path=self.path, sample_id=self.sample_id)
        scaled = np.round(block.astype(np.float64) * 32768)
        pcm: NDArray[np.int16] = np.clip(scaled, -32768, 32767).astype(np.int16)
        return pcm


@contextlib.contextmanager
def open_received(path: Path, sample_id: str) -> Iterator[ReceivedAudio]:
    """``path`` opened for :meth:`ReceivedAudio.read`; a cut, empty, unreadable or
    multi-channel file is an InputError naming it."""
    import soundfile as sf

    info = audio_info(path, sample_id=sample_id)
    if info.channels != 1:
        raise InputError(f"expected mono audio, found {info.channels} channels", path=path,
                         sample_id=sample_id)
    try:
        handle = sf.SoundFile(str(path))
    except (RuntimeError, sf.LibsndfileError) as exc:
        raise InputError(f"cannot read audio: {exc}", path=path, sample_id=sample_id) from exc
    with handle:
        yield ReceivedAudio(path, sample_id, info.rate, info.n_samples, handle)
