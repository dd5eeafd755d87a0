"""``fdb15 build-dataset``: a v1.5 dataset in the official layout from espeak-ng speech.

Each sample follows the paper's construction: a context turn in the user's voice, about
4 s of silence (in which a system answers it), then the scenario's overlap turn, then
:data:`TAIL_S` of silence for the system to react. ``clean_input.wav`` is the same audio
without the overlap turn (same length, same noise floor), so the pair differs only where
the overlap is. The overlap turns are treated as :data:`SCENARIOS` says (the paper's
section 3.2): an interruption and a backchannel in the user's voice, unprocessed; talking
to another person at -8 dB with a -5 dB shelf above 4 kHz and reflections at 45 ms
(-6 dB) and 120 ms (-12 dB); background speech in another voice at -15 dB, low-passed at
3 kHz, with a 100 ms echo at -10 dB.

The ``timestamps`` of metadata.json are true of the audio: they are the first and last
sample where input.wav and clean_input.wav differ (the overlap's first and last non-zero
PCM sample, reflections included). Every choice comes from a generator seeded by the
sample id, and ``speecheval-dataset.json`` at the root records every parameter, the
seed, the espeak-ng build and each sample's texts and times.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ....core.audio import encode_wav
from ....core.canonical_json import dumps
from ....core.output import atomic_write_bytes, atomic_write_text, new_output_dir
from ....core.pcm import to_int16
from ...common.synthetic import NOISE_SHIFT, noise_seed, official_json
from ..dataset.layout import CLEAN_INPUT_WAV, DECLARED_SIZES, INPUT_WAV, METADATA_JSON, SampleRef
from . import speech
from .acoustics import Reflection, add_reflections, apply_gain_db, high_shelf, low_pass
from .corpus import CONTEXT_TURNS
from .texts import BACKCHANNELS, BACKGROUND, SIDE_REMARKS, corpus_revision

RATE = 16_000
SEED = 0
MINI_PER_SCENARIO = 6
USER_VOICE = "en-us"
OTHER_VOICE = "en-gb+f3"
LEAD_S = 0.5
"""Silence before the context turn."""
GAP_S = (3.5, 4.5)
"""The silence between the context turn and the overlap onset is drawn from this range
(whole milliseconds): about 4 s, the paper's choice from the systems' answer timing."""
TAIL_S = 5.0
"""Silence after the overlap turn, in which the system reacts."""
BUILD_FILE = "speecheval-dataset.json"
BUILD_KIND = "fdb-v1.5-generated-dataset"


@dataclass(frozen=True)
class Treatment:
    """The acoustic chain of an overlap turn: level, then shelf or low-pass, then echoes."""

    gain_db: float = 0.0
    shelf_hz: float | None = None
    shelf_db: float = 0.0
    low_pass_hz: float | None = None
    reflections: tuple[Reflection, ...] = ()

    def apply(self, signal: NDArray[np.float64], rate: int) -> NDArray[np.float64]:
        out = apply_gain_db(signal, self.gain_db)
        if self.shelf_hz is not None:
            out = high_shelf(out, self.shelf_hz, self.shelf_db, rate)
        if self.low_pass_hz is not None:
            out = low_pass(out, self.low_pass_hz, rate)
        return add_reflections(out, self.reflections, rate)

    def describe(self) -> dict[str, Any]:
        return {"gain_db": self.gain_db,
                "high_shelf": (None if self.shelf_hz is None
                               else {"corner_hz": self.shelf_hz, "gain_db": self.shelf_db}),
                "low_pass_hz": self.low_pass_hz,
                "reflections": [{"delay_ms": r.delay_ms, "level_db": r.level_db}
                                for r in self.reflections],
                "filters": "Butterworth order 4, forward and backward (sosfiltfilt)"}


@dataclass(frozen=True)
class Scenario:
    """Where a scenario's overlap texts come from, whose voice says them, how they sound.

    ``drawn``: each sample draws its text from ``texts`` (the backchannel tokens);
    otherwise the samples take the texts in a shuffled order, each once.
    """

    texts: tuple[str, ...]
    voice: str
    treatment: Treatment
    drawn: bool = False


SCENARIOS: dict[str, Scenario] = {
    "user_interruption": Scenario(tuple(turn.interruption for turn in CONTEXT_TURNS),
                                  USER_VOICE, Treatment()),
    "user_backchannel": Scenario(BACKCHANNELS, USER_VOICE, Treatment(), drawn=True),
    "talking_to_other": Scenario(
        SIDE_REMARKS, USER_VOICE,
        Treatment(gain_db=-8.0, shelf_hz=4000.0, shelf_db=-5.0,
                  reflections=(Reflection(45.0, -6.0), Reflection(120.0, -12.0)))),
    "background_speech": Scenario(
        BACKGROUND, OTHER_VOICE,
        Treatment(gain_db=-15.0, low_pass_hz=3000.0, reflections=(Reflection(100.0, -10.0),))),
}


@dataclass(frozen=True)
class SampleSpec(SampleRef):
    """The choices of one sample, drawn before any audio is made."""

    context_id: int
    context_text: str
    overlap_text: str
    gap_s: float


@dataclass(frozen=True)
class RenderedSample:
    """The two PCM16 tracks of a sample and its overlap window in seconds."""

    spec: SampleSpec
    input_pcm: NDArray[np.int16]
    clean_pcm: NDArray[np.int16]
    window: tuple[float, float]
    onset_s: float

    def metadata(self) -> dict[str, Any]:
        return {"context_text": self.spec.context_text,
                "current_turn_text": self.spec.overlap_text,
                "timestamps": list(self.window)}

    def report_dict(self) -> dict[str, Any]:
        scenario = SCENARIOS[self.spec.scenario]
        return {"context_id": self.spec.context_id,
                "context_text": self.spec.context_text, "context_voice": USER_VOICE,
                "current_turn_text": self.spec.overlap_text, "overlap_voice": scenario.voice,
                "gap_s": self.spec.gap_s, "overlap_placed_at_s": self.onset_s,
                "timestamps": list(self.window),
                "duration_s": self.input_pcm.size / RATE}


def sample_specs(size: str) -> list[SampleSpec]:
    """The samples of ``size`` (``mini``: 6 per scenario, ``full``: the declared sizes).

    Every scenario takes the context turns in its own shuffled order, one per sample, so no
    context repeats inside a scenario; an interruption is the one its context turn holds
    (the two share ``context_id``, 1-based in :data:`.corpus.CONTEXT_TURNS`), a side remark
    or background line the next of its list in that scenario's own shuffled order. So no
    (context, overlap) pair repeats in the full set. ``mini`` is the first samples of
    ``full``, byte for byte.
    """
    specs = []
    for name, declared in DECLARED_SIZES.items():
        scenario = SCENARIOS[name]
        count = MINI_PER_SCENARIO if size == "mini" else declared
        contexts = _order(f"{name}/contexts", len(CONTEXT_TURNS), count)
        overlaps = None if scenario.drawn else (
            contexts if name == "user_interruption"
            else _order(f"{name}/texts", len(scenario.texts), count))
        for number in range(1, count + 1):
            local_id = str(number)
            rng = np.random.default_rng(noise_seed(SEED, f"{name}/{local_id}/choices"))
            index = contexts[number - 1]
            overlap = (int(rng.integers(len(scenario.texts))) if overlaps is None
                       else overlaps[number - 1])
            specs.append(SampleSpec(
                scenario=name, local_id=local_id, context_id=index + 1,
                context_text=CONTEXT_TURNS[index].context,
                overlap_text=scenario.texts[overlap],
                gap_s=round(float(rng.uniform(*GAP_S)), 3)))
    return specs


def _order(what: str, available: int, needed: int) -> list[int]:
    """``needed`` distinct indices of ``range(available)`` in an order seeded by ``what``."""
    if needed > available:
        raise ValueError(f"{what}: {needed} samples need distinct texts, the corpus has "
                         f"{available}")
    rng = np.random.default_rng(noise_seed(SEED, what))
    return [int(i) for i in rng.permutation(available)[:needed]]


def _noise(n: int, sample_id: str) -> NDArray[np.int32]:
    """The -78 dBFS floor v1.0's builder uses (no stretch is digital silence)."""
    rng = np.random.default_rng(noise_seed(SEED, sample_id))
    return (np.frombuffer(rng.bytes(n), dtype=np.int8) >> NOISE_SHIFT).astype(np.int32)


def _pcm(signal: NDArray[np.float64], what: str) -> NDArray[np.int16]:
    """PCM16 of ``signal``; a sample at or over full scale is a builder bug, not clipped."""
    if float(np.max(np.abs(signal), initial=0.0)) >= 1.0:
        raise RuntimeError(f"{what} would clip; lower speech.LEVEL_DBFS")
    return to_int16(signal)


def _checked_int16(mix: NDArray[np.int32], what: str) -> NDArray[np.int16]:
    if int(mix.max(initial=0)) > 32767 or int(mix.min(initial=0)) < -32768:
        raise RuntimeError(f"{what} would clip; lower speech.LEVEL_DBFS")
    return mix.astype(np.int16)


def render(spec: SampleSpec) -> RenderedSample:
    """Mix the sample; the window is where the overlap's PCM is not zero."""
    scenario = SCENARIOS[spec.scenario]
    context = _pcm(speech.utterance(spec.context_text, USER_VOICE, RATE), spec.sample_id)
    raw = speech.utterance(spec.overlap_text, scenario.voice, RATE)
    overlap = _pcm(scenario.treatment.apply(raw, RATE), spec.sample_id)
    audible = np.flatnonzero(overlap)
    if audible.size == 0:
        raise RuntimeError(f"{spec.sample_id}: the overlap turn is silent after treatment")
    context_at = round(LEAD_S * RATE)
    onset = context_at + context.size + round(spec.gap_s * RATE)
    total = onset + overlap.size + round(TAIL_S * RATE)
    clean = _noise(total, spec.sample_id)
    clean[context_at:context_at + context.size] += context
    mixed = clean.copy()
    mixed[onset:onset + overlap.size] += overlap
    window = ((onset + int(audible[0])) / RATE, (onset + int(audible[-1]) + 1) / RATE)
    return RenderedSample(spec=spec, input_pcm=_checked_int16(mixed, spec.sample_id),
                          clean_pcm=_checked_int16(clean, spec.sample_id), window=window,
                          onset_s=onset / RATE)


def build_record(size: str, rendered: Sequence[RenderedSample]) -> dict[str, Any]:
    """Everything needed to say how the dataset was made (``speecheval-dataset.json``)."""
    return {
        "kind": BUILD_KIND, "schema_version": 2, "size": size, "seed": SEED, "rate": RATE,
        "declared": dict(DECLARED_SIZES),
        "speech": {"engine": speech.espeak_version(), "wpm": speech.WPM,
                   "level_dbfs": speech.LEVEL_DBFS, "trim_fraction": speech.TRIM_FRACTION},
        "timing": {"lead_s": LEAD_S, "gap_s": list(GAP_S), "tail_s": TAIL_S},
        "noise": f"uniform int8 >> {NOISE_SHIFT} (-4..3 PCM16 steps), same in both files",
        "timestamps": "first and last sample where input.wav and clean_input.wav differ",
        "scenarios": {name: {"voice": s.voice, "treatment": s.treatment.describe(),
                             "texts": list(s.texts)} for name, s in SCENARIOS.items()},
        "corpus": {"revision": corpus_revision(),
                   "context_turns": [{"context_id": number, "context": turn.context,
                                      "interruption": turn.interruption}
                                     for number, turn in enumerate(CONTEXT_TURNS, start=1)]},
        "samples": {r.spec.sample_id: r.report_dict() for r in rendered},
    }


def build_dataset(dest: str | Path, size: str) -> list[RenderedSample]:
    """Write the dataset of ``size`` into the new directory ``dest`` (all or nothing)."""
    if size not in ("mini", "full"):
        raise ValueError(f"size must be mini or full, got {size!r}")
    rendered = []
    with new_output_dir(dest) as root:
        for spec in sample_specs(size):
            sample = render(spec)
            folder = root / spec.scenario / spec.local_id
            folder.mkdir(parents=True)
            atomic_write_bytes(folder / INPUT_WAV, encode_wav(sample.input_pcm, RATE))
            atomic_write_bytes(folder / CLEAN_INPUT_WAV, encode_wav(sample.clean_pcm, RATE))
            atomic_write_text(folder / METADATA_JSON, official_json(sample.metadata()))
            rendered.append(sample)
        atomic_write_text(root / BUILD_FILE, dumps(build_record(size, rendered)))
    return rendered
