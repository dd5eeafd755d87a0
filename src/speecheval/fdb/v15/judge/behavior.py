"""Behaviour after the overlap: one label per trial, and the shares per scenario.

The label is the official ``instruction/behavior.txt``'s C axis, for the first new
semantic segment of the output after the overlap begins, with the reply to the clean input
as the baseline: ``C_RESPOND`` (addresses the overlap's content), ``C_RESUME`` (goes on
with the pre-overlap answer), ``C_UNCERTAIN_HANDLING`` (could not hear, asks to repeat),
``C_UNKNOWN`` (off-target, low-information, or no speech after the overlap).

A judge (:mod:`.openai`, the official prompt through an OpenAI-compatible endpoint,
or :mod:`.offline`, which is not the official judge) reads a :class:`JudgeCase`
and gives a :class:`Verdict`. A trial the judge could not label (the endpoint gave up) has
no label and a reason; shares are over the labelled trials, the unlabelled ones counted
beside them (the paper's Table 2: one row per scenario, one column per label).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ....core.audio import audio_info
from ....core.errors import InputError
from ....core.share import Share
from ....core.timeline import Span
from ...common.annotations import Word, load_words
from ..dataset.layout import DECLARED_SIZES

LABELS = ("C_RESPOND", "C_RESUME", "C_UNCERTAIN_HANDLING", "C_UNKNOWN")
RESPOND = "C_RESPOND"

OUTPUT_JSON = "output.json"
CLEAN_OUTPUT_WAV = "clean_output.wav"
CLEAN_OUTPUT_JSON = "clean_output.json"
INPUT_JSON = "input.json"
CLEAN_INPUT_JSON = "clean_input.json"
"""The transcripts the official scripts read beside each wav (``{"chunks": [...]}``)."""


@dataclass(frozen=True)
class JudgeCase:
    """What a judge sees of one trial: the texts, the window and the timed words."""

    sample_id: str
    scenario: str
    context_text: str
    overlap_text: str
    window: Span
    output_words: tuple[Word, ...]
    clean_output_words: tuple[Word, ...]
    folder: Path


@dataclass(frozen=True)
class Verdict:
    """A judge's label for one trial (``None`` when it gave none) and why."""

    label: str | None
    reason: str

    def __post_init__(self) -> None:
        if self.label is not None and self.label not in LABELS:
            raise ValueError(f"unknown behaviour label {self.label!r}")


class Judge(Protocol):
    """Labels trials; ``identity`` says which judge it is (recorded with the run), and
    ``official`` whether the labels so far came from the official setup."""

    @property
    def official(self) -> bool: ...

    def judge(self, case: JudgeCase) -> Verdict: ...

    def identity(self) -> dict[str, Any]: ...


def words_of(folder: Path, transcript: str, wav: str, sample_id: str) -> tuple[Word, ...]:
    """The words of ``transcript`` checked against the duration of ``wav`` beside it."""
    for name in (transcript, wav):
        if not (folder / name).is_file():
            raise InputError(f"{name} is missing", path=folder / name, sample_id=sample_id)
    info = audio_info(folder / wav, sample_id=sample_id)
    duration_us = round(info.n_samples * 1_000_000 / info.rate)
    return load_words(folder / transcript, sample_id, duration_us)


def judge_case(sample_id: str, scenario: str, folder: Path, context_text: str,
               overlap_text: str, window: Span) -> JudgeCase:
    """Read the two output transcripts of one trial."""
    return JudgeCase(sample_id=sample_id, scenario=scenario, context_text=context_text,
                     overlap_text=overlap_text, window=window,
                     output_words=words_of(folder, OUTPUT_JSON, "output.wav", sample_id),
                     clean_output_words=words_of(folder, CLEAN_OUTPUT_JSON, CLEAN_OUTPUT_WAV,
                                                 sample_id),
                     folder=folder)


@dataclass(frozen=True)
class ScenarioBehaviour:
    """The label shares of one scenario over its labelled trials."""

    trials: int
    unlabelled: int
    shares: dict[str, Share]

    def report_dict(self) -> dict[str, Any]:
        return {"trials": self.trials, "unlabelled": self.unlabelled,
                "shares": {label: {"count": s.count, "n": s.n, "value": s.value,
                                   "interval": list(s.interval) if s.interval else None}
                           for label, s in self.shares.items()}}


def behaviour_shares(verdicts: Mapping[str, Verdict], scenarios: Mapping[str, str]
                     ) -> dict[str, ScenarioBehaviour]:
    """Per scenario (paper order): each label's share with its 95% Wilson interval.

    ``scenarios`` maps each sample id to its scenario.
    """
    summary = {}
    for scenario in DECLARED_SIZES:
        labels = [v.label for sample, v in verdicts.items() if scenarios[sample] == scenario]
        if not labels:
            continue
        labelled = [label for label in labels if label is not None]
        summary[scenario] = ScenarioBehaviour(
            trials=len(labels), unlabelled=len(labels) - len(labelled),
            shares={label: Share.wilson(labelled.count(label), len(labelled))
                    for label in LABELS})
    return summary


def first_segment_after(words: Sequence[Word], onset_us: int, gap_us: int) -> list[Word]:
    """The first run of words that starts at or after ``onset_us``.

    Runs are split where a word starts ``gap_us`` or more after the previous one ended; a
    run that began before the onset does not count, even where it goes on past it (the
    prompt's "segments that begin before overlap_start do not qualify").

    >>> w = [Word("a", 0, 900_000), Word("b", 1_000_000, 2_000_000),
    ...      Word("c", 3_000_000, 3_500_000), Word("d", 3_600_000, 4_000_000)]
    >>> [x.text for x in first_segment_after(w, 1_500_000, 500_000)]
    ['c', 'd']
    >>> first_segment_after(w[:2], 500_000, 500_000)
    []
    """
    ordered = sorted(words, key=lambda w: (w.start_us, w.end_us))
    runs: list[list[Word]] = []
    for word in ordered:
        if runs and word.start_us - max(w.end_us for w in runs[-1]) < gap_us:
            runs[-1].append(word)
        else:
            runs.append([word])
    return next((run for run in runs if run[0].start_us >= onset_us), [])


def table2_text(summary: Mapping[str, ScenarioBehaviour]) -> str:
    """The console table: one row per scenario, each label's share in percent."""
    from ....report.numbers import percent
    from ....report.table import Table, to_text

    rows = [[name, f"{result.trials - result.unlabelled}/{result.trials}",
             *(percent(result.shares[label].value, 1) for label in LABELS)]
            for name, result in summary.items()]
    return to_text(Table.of(["scenario", "labelled", *(label[2:].lower() for label in LABELS)],
                            rows))
