"""``build-dataset``: a Full-Duplex-Bench v1.0 *input* dataset made from espeak-ng speech.

The official dataset cannot be shipped, but ``fdb10 record`` needs input to send. This
module writes a dataset in exactly the official v1.0 layout (``<subset>/<id>/input.wav``
plus the task's annotation file, ``transcription.json``, and for interruption
``context.wav`` and ``interrupt.wav``), with annotations that are true of the audio:

* pause subsets: the user says two or three clips separated by silences; each pause is
  ``[end of the last word before it, start of the first word after it]``;
* ``candor_turn_taking``: the user says two clips; E is the end of the last user word and
  the window ends 5 s later (E2, the annotation's second time, is T);
* ``synthetic_user_interruption``: a question (``context.wav``), silence in which a system
  would answer, then the interruption clip (``interrupt.wav``); S is the clip start (the
  dataset's convention) and R the end of its last word;
* ``icc_backchannel``: a monologue of clips with short gaps, no annotation.

It reuses the reference-tree builder's pieces: the committed clips with their exact word
times (:mod:`.clips`), :class:`.spec.SampleSpec` to describe a sample, and
:func:`.render.render_audio` (clips over -78 dBFS noise) to render it. Every choice
comes from ``numpy.random.default_rng`` seeded per subset, so a size always gives the same
bytes. ``synthetic_pause_handling`` is written at 48 kHz, as the official pause example
is, so a capture meets both rates the real dataset has.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ....core.audio import encode_wav, resample
from ....core.canonical_json import dumps
from ....core.output import atomic_write_bytes, atomic_write_text, new_output_dir
from ....core.timebase import from_us, to_us
from ...common.synthetic import official_json
from .clips import ClipLibrary, load_clips
from .render import annotation, render_audio
from .spec import ANNOTATION_FILES, DECLARED_SIZES, RATE, Placement, SampleSpec

MINI_PER_SUBSET = 8
BUILD_FILE = "speecheval-dataset.json"
"""Written at the dataset root: how it was made. The official layout has no root file;
readers of the layout ignore it."""
INPUT_RATES: dict[str, int] = {name: RATE for name in DECLARED_SIZES}
INPUT_RATES["synthetic_pause_handling"] = 48_000

_TURN_WINDOW_S = 5.0       # candor turn-taking windows end about 5 s after E
_ANSWER_ROOM_S = (3.0, 5.0)  # silence after the question in which a system answers
_AFTER_R_S = 6.0
_PAUSE_S = (0.8, 2.0)
_LEAD_S = (0.3, 0.8)


class _Voice:
    """Seeded, millisecond-grid choices of clips and times for one subset."""

    def __init__(self, clips: ClipLibrary, seed_key: str) -> None:
        self.clips = clips
        self.rng = np.random.default_rng(list(seed_key.encode()))
        self.names = sorted(clips.clips)

    def time(self, low: float, high: float) -> float:
        return round(float(self.rng.uniform(low, high)), 3)

    def clip(self, *prefixes: str) -> str:
        pool = [n for n in self.names if n.startswith(prefixes)]
        return pool[int(self.rng.integers(len(pool)))]

    def first_word_us(self, name: str) -> int:
        return self.clips[name].words[0].start_us

    def last_word_end_us(self, name: str) -> int:
        return self.clips[name].words[-1].end_us


def _s(us: int) -> float:
    return from_us(us)


def _pause_spec(voice: _Voice, subset: str, local_id: str) -> SampleSpec:
    at = to_us(voice.time(*_LEAD_S))
    placements: list[Placement] = []
    pauses: list[tuple[float, float]] = []
    for index in range(2 + int(voice.rng.integers(2))):
        name = voice.clip("m_", "l_", "s_")
        if index:
            spoken_end = at
            at += to_us(voice.time(*_PAUSE_S))
            pauses.append((_s(spoken_end), _s(at + voice.first_word_us(name))))
        placements.append(Placement(name, _s(at)))
        at += voice.last_word_end_us(name)
    duration = _s(at + to_us(voice.time(0.5, 1.5)))
    return SampleSpec(subset=subset, local_id=local_id, duration_s=duration,
                      placements=tuple(placements), pauses=tuple(pauses))


def _turn_spec(voice: _Voice, subset: str, local_id: str) -> SampleSpec:
    at = to_us(voice.time(*_LEAD_S))
    placements = []
    for name in (voice.clip("m_", "l_"), voice.clip("s_", "m_")):
        placements.append(Placement(name, _s(at)))
        at += voice.last_word_end_us(name) + to_us(voice.time(0.2, 0.4))
    last = placements[-1]
    turn_end = to_us(last.start_s) + voice.last_word_end_us(last.clip)
    duration = _s(turn_end + to_us(_TURN_WINDOW_S))
    return SampleSpec(subset=subset, local_id=local_id, duration_s=duration,
                      placements=tuple(placements), turn=(_s(turn_end), duration))


def _interrupt_spec(voice: _Voice, subset: str, local_id: str) -> SampleSpec:
    question = voice.clip("m_", "l_")
    interruption = voice.clip("m_", "s_")
    ask = to_us(voice.time(*_LEAD_S))
    onset = (ask + voice.last_word_end_us(question)
             + to_us(voice.time(*_ANSWER_ROOM_S)))
    end = onset + voice.last_word_end_us(interruption)
    duration = _s(end + to_us(_AFTER_R_S))
    clips = voice.clips
    return SampleSpec(subset=subset, local_id=local_id, duration_s=duration,
                      placements=(Placement(question, _s(ask)),
                                  Placement(interruption, _s(onset))),
                      interrupt=(_s(onset), _s(end)),
                      context=(clips[question].text, clips[interruption].text))


def _backchannel_spec(voice: _Voice, subset: str, local_id: str) -> SampleSpec:
    at = to_us(voice.time(*_LEAD_S))
    placements = []
    for _ in range(3):
        name = voice.clip("l_", "m_")
        placements.append(Placement(name, _s(at)))
        at += voice.last_word_end_us(name) + to_us(voice.time(0.3, 0.6))
    return SampleSpec(subset=subset, local_id=local_id, duration_s=_s(at + to_us(1.0)),
                      placements=tuple(placements))


_DESIGNS: dict[str, Callable[[_Voice, str, str], SampleSpec]] = {
    "synthetic_pause_handling": _pause_spec,
    "candor_pause_handling": _pause_spec,
    "candor_turn_taking": _turn_spec,
    "synthetic_user_interruption": _interrupt_spec,
    "icc_backchannel": _backchannel_spec,
}


def dataset_specs(size: str, clips: ClipLibrary | None = None) -> list[SampleSpec]:
    """The samples of a built dataset: ``mini`` (8 per subset) or ``full`` (declared sizes).

    The mini set is the first 8 samples of each subset of the full set.
    """
    if size not in ("mini", "full"):
        raise ValueError(f"unknown dataset size {size!r}")
    library = load_clips() if clips is None else clips
    specs: list[SampleSpec] = []
    for subset, declared in DECLARED_SIZES.items():
        voice = _Voice(library, f"fdb10-dataset/{subset}")
        count = declared if size == "full" else MINI_PER_SUBSET
        specs.extend(_DESIGNS[subset](voice, subset, str(i + 1)) for i in range(count))
    return specs


def _transcription(spec: SampleSpec, clips: ClipLibrary) -> list[dict[str, Any]]:
    """``transcription.json`` in the official shape: the user's words as speaker 0."""
    items = []
    for placement in spec.placements:
        offset = to_us(placement.start_s)
        for word in clips[placement.clip].words:
            items.append({"text": word.text, "timestamp": [_s(offset + word.start_us),
                                                           _s(offset + word.end_us)]})
    return [{"speaker": 0, "item": items}]


def _at_rate(pcm: NDArray[np.int16], rate: int) -> NDArray[np.float32]:
    samples = pcm.astype(np.float32) / 32768.0
    return resample(samples, RATE, rate)


def write_dataset_sample(spec: SampleSpec, clips: ClipLibrary, root: Path) -> None:
    """Write one sample's folder in the official layout under ``root``."""
    folder = root / spec.subset / spec.local_id
    rate = INPUT_RATES[spec.subset]
    pcm = render_audio(spec, clips, seed=0)
    atomic_write_bytes(folder / "input.wav", encode_wav(_at_rate(pcm, rate), rate))
    doc = annotation(spec)
    name = ANNOTATION_FILES[spec.task]
    if doc is not None and name is not None:
        atomic_write_text(folder / name, official_json(doc))
    if spec.interrupt is None:
        atomic_write_text(folder / "transcription.json",
                          official_json(_transcription(spec, clips)))
        return
    question, interruption = (clips[p.clip].pcm for p in spec.placements)
    atomic_write_bytes(folder / "context.wav", encode_wav(_at_rate(question, rate), rate))
    atomic_write_bytes(folder / "interrupt.wav", encode_wav(_at_rate(interruption, rate), rate))


def build_dataset(dest: str | Path, size: str = "mini") -> list[SampleSpec]:
    """Write the dataset into the new directory ``dest``; it appears only when complete."""
    library = load_clips()
    specs = dataset_specs(size, library)
    with new_output_dir(dest) as root:
        for spec in specs:
            write_dataset_sample(spec, library, root)
        atomic_write_text(root / BUILD_FILE, dumps({
            "kind": "speecheval-fdb10-dataset", "size": size,
            "generator": "speecheval fdb10 build-dataset",
            "speech_index_sha256": library.index_sha256,
            "input_rates": INPUT_RATES,
            "samples": {subset: sum(s.subset == subset for s in specs)
                        for subset in DECLARED_SIZES}}))
    return specs
