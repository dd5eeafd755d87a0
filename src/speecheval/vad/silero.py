"""Silero VAD speech segments on a whole file, as the FDB v1.0 scorer defines speech.

``SileroVad(settings).segments(audio)`` returns what
``silero_vad.get_speech_timestamps(audio, load_silero_vad(), ...)`` returns for the same
settings, segment for segment, but runs on onnxruntime and numpy (see ``silero_model``
for the model file and ``silero_segments`` for the state machine). torch is never
imported.

Sample rates follow Silero: 8 and 16 kHz are used as they are; a multiple of 16 kHz is
decimated by keeping every k-th sample, exactly as ``get_speech_timestamps`` does (no
low-pass filter); any other rate, which Silero refuses, is resampled to 16 kHz with
``speecheval.core.audio.resample`` first. Segment times are reported in seconds on the
input file's timeline (sample index over rate), as :class:`~speecheval.core.timeline.Span`
values rounded to the microsecond. The one place the result differs from Silero's sample
indices is the end of speech that runs to the end of the file: Silero ends it at the
decimated (or resampled) length scaled back, which can pass the file's last sample by a
fraction of a window step; here it ends at the file's duration and is marked
``open_at_end`` (the speech had not stopped when the file did).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from speecheval.core.audio import Audio, Samples, resample
from speecheval.core.errors import InputError
from speecheval.core.timeline import Span

from .silero_model import (
    Probabilities,
    SileroOnnx,
    computation,
    locate_model_files,
    model_hash,
    runtime,
)
from .silero_segments import SegmentRule, speech_segments
from .silero_spec import DISTRIBUTION, FRAMING, MODEL_FILE, MODEL_RATE


@dataclass(frozen=True)
class SileroSettings:
    """The parameters of ``get_speech_timestamps``; defaults are Silero's except padding.

    The FDB v1.0 spec fixes ``speech_pad_ms`` at 0 (Silero's default is 30), because
    padding can move a reply that starts just after a reference time to before it.
    ``max_speech_s=None`` means no maximum (Silero's ``float('inf')``, which JSON cannot
    hold); ``neg_threshold=None`` means Silero's ``max(threshold - 0.15, 0.01)``.
    """

    threshold: float = 0.5
    min_speech_ms: int = 250
    min_silence_ms: int = 100
    speech_pad_ms: int = 0
    max_speech_s: float | None = None
    neg_threshold: float | None = None
    min_silence_at_max_speech_ms: int = 98
    use_max_poss_sil_at_max_speech: bool = True

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold < 1.0:
            raise InputError(f"Silero threshold must lie in (0, 1), got {self.threshold}")
        if self.neg_threshold is not None and not 0.0 < self.neg_threshold <= self.threshold:
            raise InputError(f"Silero neg_threshold must lie in (0, threshold], got "
                             f"{self.neg_threshold}")
        for name in ("min_speech_ms", "min_silence_ms", "speech_pad_ms",
                     "min_silence_at_max_speech_ms"):
            value = getattr(self, name)
            if value < 0:
                raise InputError(f"Silero {name} must not be negative, got {value}")
        if self.max_speech_s is not None and not (math.isfinite(self.max_speech_s)
                                                  and self.max_speech_s > 0):
            raise InputError(f"Silero max_speech_s must be positive and finite (None for no "
                             f"limit), got {self.max_speech_s}")

    def rule(self, rate: int) -> SegmentRule:
        """The state machine's parameters at model rate ``rate``, computed as Silero does."""
        window = FRAMING[rate][0]
        pad = rate * self.speech_pad_ms / 1000
        max_s = math.inf if self.max_speech_s is None else self.max_speech_s
        neg = (max(self.threshold - 0.15, 0.01) if self.neg_threshold is None
               else self.neg_threshold)
        return SegmentRule(
            window=window,
            threshold=self.threshold,
            neg_threshold=neg,
            min_speech=rate * self.min_speech_ms / 1000,
            min_silence=rate * self.min_silence_ms / 1000,
            max_speech=rate * max_s - window - 2 * pad,
            min_silence_at_max_speech=rate * self.min_silence_at_max_speech_ms / 1000,
            use_max_possible_silence=self.use_max_poss_sil_at_max_speech,
            speech_pad=pad,
        )


@dataclass(frozen=True)
class ModelInput:
    """What the model sees for one file: samples at 8 or 16 kHz and how to map back.

    ``step`` is the decimation factor for multiples of 16 kHz (1 otherwise);
    ``resampled`` says the rate was one Silero refuses and the audio was resampled.
    """

    samples: Samples
    rate: int
    step: int
    resampled: bool


def model_input(audio: Audio, path: str | Path | None = None) -> ModelInput:
    """Bring ``audio`` to a rate the model takes, the way ``get_speech_timestamps`` would.

    ``path`` only names the file in error messages.

    >>> from speecheval.core.audio import Audio
    >>> x = model_input(Audio(np.arange(9, dtype=np.float32), 48_000))
    >>> x.rate, x.step, x.samples.tolist()
    (16000, 3, [0.0, 3.0, 6.0])
    >>> model_input(Audio(np.zeros(441, dtype=np.float32), 22_050)).samples.size
    320
    """
    samples = np.asarray(audio.samples, dtype=np.float32)
    if samples.ndim != 1:
        raise InputError(f"Silero needs mono audio, got an array of shape {samples.shape}",
                         path=path)
    if not np.isfinite(samples).all():
        bad = np.flatnonzero(~np.isfinite(samples))
        raise InputError(f"audio has {bad.size} non-finite samples, the first at sample "
                         f"{int(bad[0])}", path=path)
    if audio.rate <= 0:
        raise InputError(f"audio has an invalid sample rate {audio.rate}", path=path)
    if audio.rate in FRAMING:
        return ModelInput(samples, audio.rate, 1, resampled=False)
    if audio.rate > MODEL_RATE and audio.rate % MODEL_RATE == 0:
        step = audio.rate // MODEL_RATE
        return ModelInput(np.ascontiguousarray(samples[::step]), MODEL_RATE, step,
                          resampled=False)
    return ModelInput(resample(samples, audio.rate, MODEL_RATE), MODEL_RATE, 1,
                      resampled=True)


class SileroVad:
    """Silero VAD over whole files with the FDB v1.0 settings by default."""

    def __init__(self, settings: SileroSettings = SileroSettings()) -> None:
        self.settings = settings
        self._files = locate_model_files()
        self._model: SileroOnnx | None = None
        self._hash: str | None = None

    @property
    def _onnx(self) -> SileroOnnx:
        """The onnxruntime sessions, made on first use: :meth:`identity` (all a run
        needs when its segments come from the VAD cache) does not need them."""
        if self._model is None:
            self._model = SileroOnnx(self._files)
        return self._model

    def probabilities(self, audio: Audio, *, path: str | Path | None = None) -> Probabilities:
        """Speech probability of each 32 ms model window (see ``model_input`` for rates)."""
        prepared = model_input(audio, path)
        return self._onnx.probabilities(prepared.samples, prepared.rate)

    def segments(self, audio: Audio, *, path: str | Path | None = None) -> list[Span]:
        """Speech segments of the whole of ``audio``, in time order (a
        :class:`speecheval.vad.base.Vad`).

        ``path`` (optional) names the file in the error raised for unusable audio.
        """
        prepared = model_input(audio, path)
        probs = self._onnx.probabilities(prepared.samples, prepared.rate)
        return self._spans(probs, prepared, audio)

    def segments_many(self, audios: Sequence[Audio],
                      paths: Sequence[str | Path | None] | None = None) -> list[list[Span]]:
        """:meth:`segments` of each of ``audios``, the same spans, with the LSTM of the
        files the model sees at 16 kHz run together as one batch
        (``SileroOnnx.batched_probabilities_many``: 8 to 14 % less CPU in groups of four
        30 s files, in a process alone; docs/vad.md). 8 kHz audio goes the streaming way,
        file by file.

        ``paths`` (optional, one per audio) name the files in errors: every file is
        checked before any is scored, and the first unusable one raises what
        :meth:`segments` raises for it.
        """
        if paths is not None and len(paths) != len(audios):
            raise ValueError(f"segments_many got {len(audios)} audios but {len(paths)} paths")
        named = [None] * len(audios) if paths is None else paths
        prepared = [model_input(audio, path) for audio, path in zip(audios, named, strict=True)]
        at_16k = [index for index, item in enumerate(prepared) if item.rate == MODEL_RATE]
        probs: dict[int, Probabilities] = dict(zip(at_16k, self._onnx.batched_probabilities_many(
            [prepared[index].samples for index in at_16k]), strict=True))
        return [self._spans(probs[index] if index in probs
                            else self._onnx.probabilities(item.samples, item.rate), item, audio)
                for index, (item, audio) in enumerate(zip(prepared, audios, strict=True))]

    def _spans(self, probs: Probabilities, prepared: ModelInput, audio: Audio) -> list[Span]:
        """The speech segments of a file's probabilities, on the file's timeline."""
        found = speech_segments(probs, self.settings.rule(prepared.rate),
                                prepared.samples.size)
        return [self._to_span(start, end, prepared, audio) for start, end in found]

    @staticmethod
    def _to_span(start: int, end: int, prepared: ModelInput, audio: Audio) -> Span:
        """Model-rate sample indices to a span on the file's timeline, ending at its end.

        A segment that reaches the last sample the model saw is still running when the
        file ends (``open_at_end``). That is the same as its end in seconds reaching the
        file's duration: decimation keeps ceil(n / step) samples and resampling makes
        ceil(n * 16000 / rate), both at or past the file's end once scaled back.
        """
        if prepared.resampled:
            start_s, end_s = start / prepared.rate, end / prepared.rate
        else:
            start_s = start * prepared.step / audio.rate
            end_s = end * prepared.step / audio.rate
        return Span.from_seconds(start_s, min(end_s, audio.duration_s),
                                 open_at_end=end >= prepared.samples.size)

    def identity(self) -> dict[str, object]:
        """What a run records so its speech segments can be traced and reproduced (also
        the VAD cache's key: everything here decides the segments)."""
        if self._hash is None:
            self._hash = model_hash(self._files)
        return {
            "package": DISTRIBUTION,
            "version": self._files.version,
            "model_file": MODEL_FILE,
            "model_sha256": self._hash,
            "runtime": runtime(),
            "computation_16k": computation(),
            "settings": asdict(self.settings),
        }
