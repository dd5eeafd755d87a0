"""Parity with the real package: ``silero_vad.get_speech_timestamps`` on the JIT model.

The reference is exactly what the FDB v1.0 spec names: the model ``load_silero_vad()``
loads (``silero_vad.jit`` under torch, one thread) and ``get_speech_timestamps`` with the
scorer's settings. Probabilities must agree within 1e-4 and segments exactly, in samples
of the input file. These tests need torch (the ``parity`` extra) and skip without it.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pytest

from speecheval.core.audio import Audio
from speecheval.core.timeline import Span
from speecheval.vad.silero import SileroSettings, SileroVad, model_input
from speecheval.vad.silero_segments import speech_segments

from .audio_cases import Case, parity_cases, pause_midpoint_s

torch = pytest.importorskip("torch", reason="parity tests need torch (pip install '.[parity]')")
pytest.importorskip("packaging", reason="silero_vad.utils_vad imports packaging")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.jit.load

PROB_TOLERANCE = 1e-4
CASES = parity_cases()


class RecordingModel:
    """Wraps the JIT model and keeps every probability ``get_speech_timestamps`` asks for."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.probs: list[float] = []

    def reset_states(self) -> None:
        self.probs = []
        self.model.reset_states()

    def __call__(self, chunk: Any, rate: int) -> Any:
        out = self.model(chunk, rate)
        self.probs.append(out.item())
        return out


@pytest.fixture(scope="module")
def reference_model() -> RecordingModel:
    from silero_vad import load_silero_vad  # type: ignore[import-untyped]

    torch.set_num_threads(1)
    return RecordingModel(load_silero_vad())


@pytest.fixture(scope="module")
def vad_by_settings() -> dict[SileroSettings, SileroVad]:
    return {}


Reference = tuple[list[float], list[Span]]
_REFERENCES: dict[tuple[str, SileroSettings], Reference] = {}


def cached_reference(case: Case, settings: SileroSettings, model: RecordingModel) -> Reference:
    """``reference`` once per case and settings (the guard test reuses the parity runs)."""
    key = (case.name, settings)
    if key not in _REFERENCES:
        _REFERENCES[key] = reference(case.audio, settings, model)
    return _REFERENCES[key]


def reference(audio: Audio, settings: SileroSettings, model: RecordingModel) -> Reference:
    """Silero's probabilities and segments, mapped onto the file's timeline in seconds.

    A rate Silero refuses is given to it after the documented resampling to 16 kHz.
    Sample indices become seconds as ``index / rate``; an end past the file's last sample
    (Silero scales the decimated length back up) is cut to the file's duration.
    """
    prepared = model_input(audio)
    samples, rate = ((prepared.samples, 16_000) if prepared.resampled
                     else (audio.samples, audio.rate))
    kwargs = dict(threshold=settings.threshold, min_speech_duration_ms=settings.min_speech_ms,
                  min_silence_duration_ms=settings.min_silence_ms,
                  speech_pad_ms=settings.speech_pad_ms,
                  min_silence_at_max_speech=settings.min_silence_at_max_speech_ms,
                  use_max_poss_sil_at_max_speech=settings.use_max_poss_sil_at_max_speech)
    if settings.max_speech_s is not None:
        kwargs["max_speech_duration_s"] = settings.max_speech_s
    from silero_vad import get_speech_timestamps

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Sampling rate is a multiply of 16000"
        found = get_speech_timestamps(torch.from_numpy(samples.copy()), model,
                                      sampling_rate=rate, **kwargs)
    # speech that reaches the end of the file is still running there (open_at_end)
    segments = [Span.from_seconds(item["start"] / rate, min(item["end"] / rate, audio.duration_s),
                                  open_at_end=item["end"] / rate >= audio.duration_s)
                for item in found]
    return list(model.probs), segments


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_matches_get_speech_timestamps(case: Case, reference_model: RecordingModel,
                                       vad_by_settings: dict[SileroSettings, SileroVad]
                                       ) -> None:
    settings = dataclasses.replace(SileroSettings(), **dict(case.overrides))
    vad = vad_by_settings.setdefault(settings, SileroVad(settings))
    ref_probs, ref_segments = cached_reference(case, settings, reference_model)

    ours = vad.probabilities(case.audio)
    assert ours.shape == (len(ref_probs),)
    if ref_probs:
        worst = float(np.max(np.abs(ours - np.asarray(ref_probs))))
        assert worst <= PROB_TOLERANCE, f"{case.name}: probabilities differ by {worst}"
    assert vad.segments(case.audio) == ref_segments


def test_parity_set_exercises_speech_and_splits(reference_model: RecordingModel) -> None:
    """Guard against a vacuous parity set: the reference must find speech, bridge a short
    pause and split on a longer one, and return nothing on silence and pure tones."""
    settings = SileroSettings()
    by_name = {case.name: case for case in CASES}
    found = {name: cached_reference(by_name[name], settings, reference_model)[1]
             for name in ("speech_16k", "speech_8k", "silence", "empty", "tones",
                          "pause_120ms", "pause_150ms")}
    assert found["speech_16k"] and found["speech_8k"]
    assert found["silence"] == [] and found["empty"] == [] and found["tones"] == []
    assert _covered(found["pause_120ms"], pause_midpoint_s(120))
    assert not _covered(found["pause_150ms"], pause_midpoint_s(150))


def _covered(segments: list[Span], time_s: float) -> bool:
    return any(segment.start_s <= time_s < segment.end_s for segment in segments)


STATE_MACHINE_SETTINGS = [
    SileroSettings(),
    SileroSettings(speech_pad_ms=30),
    SileroSettings(speech_pad_ms=200, min_silence_ms=50, min_speech_ms=100),
    SileroSettings(max_speech_s=1.0),
    SileroSettings(max_speech_s=1.5, use_max_poss_sil_at_max_speech=False, speech_pad_ms=30),
    # The legacy cut needs silences that outlast min_silence_at_max_speech without ending
    # speech, so min silence must be the longer of the two.
    SileroSettings(max_speech_s=1.0, use_max_poss_sil_at_max_speech=False, min_silence_ms=400),
    SileroSettings(threshold=0.3, neg_threshold=0.2, min_silence_at_max_speech_ms=40,
                   max_speech_s=0.8),
]


@pytest.mark.parametrize("settings", STATE_MACHINE_SETTINGS,
                         ids=[f"settings{i}" for i in range(len(STATE_MACHINE_SETTINGS))])
@pytest.mark.parametrize("rate", [16_000, 8_000])
def test_state_machine_matches_silero_on_random_probabilities(settings: SileroSettings,
                                                              rate: int) -> None:
    """Many random probability tracks through both state machines, every branch reached.

    Tracks are random walks, so they hover around the thresholds and produce starts, short
    and long silences, max-length cuts and open speech at the end.
    """
    from silero_vad import get_speech_timestamps_from_probs

    rule = settings.rule(rate)
    rng = np.random.default_rng(rate + 7 * STATE_MACHINE_SETTINGS.index(settings))
    for _ in range(150):
        n_windows = int(rng.integers(0, 400))
        steps = rng.normal(0.0, float(rng.choice([0.05, 0.15, 0.3])), n_windows)
        probs = np.clip(np.cumsum(steps) + rng.uniform(0, 1), 0, 1).astype(np.float32).tolist()
        n_samples = max(0, n_windows * rule.window - int(rng.integers(0, rule.window)))
        expected = get_speech_timestamps_from_probs(
            probs, sampling_rate=rate, threshold=settings.threshold,
            neg_threshold=settings.neg_threshold,
            min_speech_duration_ms=settings.min_speech_ms,
            min_silence_duration_ms=settings.min_silence_ms,
            speech_pad_ms=settings.speech_pad_ms,
            max_speech_duration_s=(float("inf") if settings.max_speech_s is None
                                   else settings.max_speech_s),
            min_silence_at_max_speech=settings.min_silence_at_max_speech_ms,
            use_max_poss_sil_at_max_speech=settings.use_max_poss_sil_at_max_speech,
            audio_length_samples=n_samples)
        got = speech_segments(probs, rule, n_samples)
        assert got == [(item["start"], item["end"]) for item in expected], probs
