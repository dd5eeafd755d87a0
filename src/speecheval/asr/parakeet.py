"""Parakeet TDT 0.6B v2 through NeMo: the recogniser the official evaluator uses.

The official ``get_transcript/asr.py`` loads ``nvidia/parakeet-tdt-0.6b-v2`` with
``ASRModel.from_pretrained`` (a download), writes each track to a temporary 16-bit WAV,
calls ``transcribe([path], timestamps=True)`` and takes the first hypothesis's
``timestamp["word"]`` entries, whose ``start`` and ``end`` are seconds
(``start_offset * window_stride * subsampling_factor``, 0.08 s frames for this model).
This module does the same from a local ``.nemo`` file given by the user: the file's
SHA-256 is checked against the one the user pins before NeMo sees it, and it is loaded
with ``ASRModel.restore_from``, never downloaded.

NeMo is an optional extra (``pip install 'speecheval[parakeet]'``); the module imports it
only when a model is loaded, so the rest of speecheval works without it.
"""

from __future__ import annotations

import importlib
import re
import tempfile
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ..core.audio import Samples, write_wav
from ..core.errors import InputError
from ..core.extras import require
from ..core.hashing import sha256_file
from ..core.provenance import package_version
from .base import SAMPLE_RATE, RecognitionFailed, TimedWord

OFFICIAL_CHECKPOINT = "nvidia/parakeet-tdt-0.6b-v2"
EXTRA = "parakeet"
PACKAGES = ("nemo_toolkit", "torch")
_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class ParakeetSettings:
    """Everything passed to NeMo besides the audio."""

    device: str = "cuda"
    batch_size: int = 1
    timestamps: bool = True


@dataclass(frozen=True)
class Checkpoint:
    """A ``.nemo`` file whose SHA-256 was found equal to the one the user pinned."""

    path: Path
    sha256: str


def verified_checkpoint(path: Path, expected_sha256: str) -> Checkpoint:
    """The checkpoint at ``path`` once its SHA-256 equals ``expected_sha256``.

    Checked before NeMo is asked to load it, so a wrong, truncated or swapped file stops
    the run here, named, instead of transcribing with another model.
    """
    expected = expected_sha256.strip().lower()
    if not _HEX64.fullmatch(expected):
        raise InputError(f"--nemo-sha256 must be 64 hex digits, got {expected_sha256!r}")
    if not path.is_file():
        raise InputError("the .nemo checkpoint is missing (parakeet never downloads it; "
                         f"give the local file of {OFFICIAL_CHECKPOINT})", path=path)
    actual = sha256_file(path)
    if actual != expected:
        raise InputError(f"the .nemo checkpoint has SHA-256 {actual}, not the pinned "
                         f"{expected}", path=path)
    return Checkpoint(path=path.resolve(), sha256=actual)


def require_nemo() -> Any:
    """NeMo's ``ASRModel`` class, or a one-line error naming the extra to install."""
    models = require("nemo.collections.asr.models", needed_for="the parakeet backend",
                     package="NeMo", extra=EXTRA)
    return models.ASRModel


class ParakeetRecogniser:
    """Timed words from a verified Parakeet ``.nemo`` checkpoint, loaded on first use."""

    def __init__(self, checkpoint: Checkpoint, settings: ParakeetSettings | None = None
                 ) -> None:
        self.checkpoint = checkpoint
        self.settings = settings or ParakeetSettings()
        self._asr_model = require_nemo()
        self._torch = importlib.import_module("torch")
        if self.settings.device == "cuda" and not self._torch.cuda.is_available():
            raise InputError("--nemo-device cuda, but torch finds no CUDA device "
                             "(give --nemo-device cpu to run Parakeet on the CPU)")

    @cached_property
    def _model(self) -> Any:
        try:
            return self._asr_model.restore_from(
                restore_path=str(self.checkpoint.path),
                map_location=self._torch.device(self.settings.device))
        except Exception as exc:  # NeMo raises many types for a file it cannot use
            raise InputError(f"NeMo could not load the checkpoint: {type(exc).__name__}: "
                             f"{exc}", path=self.checkpoint.path) from exc

    def words(self, samples: Samples) -> list[TimedWord]:
        """Words of a 16 kHz track, transcribed from a temporary 16-bit WAV as the
        official script does, with NeMo's word times in seconds.

        NeMo failing on this track (out of GPU memory on a long one, an answer without
        word times) is this sample's failure, with NeMo's error as the reason."""
        model = self._model
        with tempfile.TemporaryDirectory(prefix="speecheval-parakeet-") as scratch:
            wav = Path(scratch) / "track.wav"
            write_wav(wav, samples, SAMPLE_RATE)
            try:
                hypotheses = model.transcribe([str(wav)], batch_size=self.settings.batch_size,
                                              timestamps=self.settings.timestamps,
                                              verbose=False)
                return words_of_hypothesis(hypotheses[0])
            except Exception as exc:  # whatever NeMo raises, the run goes on
                raise RecognitionFailed(f"NeMo failed on this track: "
                                        f"{type(exc).__name__}: {exc}") from exc

    def identity(self) -> dict[str, object]:
        return {
            "backend": "parakeet",
            "engine": "NeMo ASRModel.restore_from + transcribe(timestamps=True)",
            "model": {"name": OFFICIAL_CHECKPOINT, "file": self.checkpoint.path.name,
                      "sha256": self.checkpoint.sha256},
            "packages": {name: package_version(name) for name in PACKAGES},
            "decoding": asdict(self.settings),
            "audio": f"WAV, {SAMPLE_RATE} Hz mono, 16-bit PCM",
            "word_times": 'hypothesis.timestamp["word"][i]["start"] and ["end"], seconds',
        }


def words_of_hypothesis(hypothesis: Any) -> list[TimedWord]:
    """The timed words of one NeMo hypothesis, in its order, as the official script takes
    them (``word``, ``start``, ``end``; offsets in frames are not used).

    >>> class Hypothesis:
    ...     timestamp = {"word": [{"word": "Hi", "start_offset": 5, "end_offset": 7,
    ...                            "start": 0.4, "end": 0.56}]}
    >>> words_of_hypothesis(Hypothesis())
    [TimedWord(text='Hi', start_s=0.4, end_s=0.56)]
    """
    return [TimedWord(str(w["word"]), float(w["start"]), float(w["end"]))
            for w in hypothesis.timestamp["word"]]
