"""cpWER / cpCER: per-speaker text with the best speaker assignment."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...formats.segment import has_speakers
from ...text.cp import CpResult, cp_error_rate
from ..manifest import NON_SPEECH_KINDS
from ..measure import Measure, Outcome, RunInputs, RunScore, ScenarioView, sample_values
from ..table_entries import SpeakerRate
from .text import RATE_NAMES


def speaker_refusal(inputs: RunInputs) -> str | None:
    """Why a speaker-attributed text measure cannot score this run, or ``None``: it needs
    a speech sample, reference speakers, and system speakers (a failed run of a system
    that gives speakers counts as empty output)."""
    if inputs.sample.kind in NON_SPEECH_KINDS:
        return f"{inputs.sample.kind} sample"
    if not has_speakers(inputs.reference.segments):
        return "reference has no speaker labels"
    if not has_speakers(inputs.hypothesis.segments) and not (inputs.failed
                                                             and inputs.support.speakers):
        return "unsupported: the system gives no speaker attribution"
    return None


class ConcatenatedPermutation(Measure[CpResult]):
    """Needs reference speakers; a system without speaker output is ``unsupported``."""

    name = "cp"

    def score(self, inputs: RunInputs) -> Outcome[CpResult]:
        refusal = speaker_refusal(inputs)
        if refusal is not None:
            return Outcome(status={"cp": refusal})
        return Outcome(cp_error_rate(inputs.reference.segments, inputs.hypothesis.segments,
                                     inputs.unit))

    def row(self, result: CpResult, run: RunScore) -> Any:
        return result.report_dict("cp" + RATE_NAMES[run.unit])

    def table(self, runs: Sequence[RunScore], view: ScenarioView) -> SpeakerRate:
        return rate_table(runs, view, self.name, error_pair(self.name))


def error_pair(name: str) -> Callable[[RunScore], tuple[float, float] | None]:
    """``(errors, reference tokens)`` of a run's result of measure ``name`` (a result with
    ``counts``), ``None`` when it was not scored."""
    def pick(run: RunScore) -> tuple[float, float] | None:
        result = run.results.get(name)
        if result is None:
            return None
        counts = result.counts  # type: ignore[attr-defined]  # cp, ORC, tcp results
        return (counts.errors, counts.reference_tokens)
    return pick


def rate_table(runs: Sequence[RunScore], view: ScenarioView, name: str,
               pick: Callable[[RunScore], tuple[float, float] | None]) -> SpeakerRate:
    """A speaker measure's scenario entry: runs scored, runs ``unsupported`` (a system
    property, never a rate of 0 or 1), and the rate summary of the pairs ``pick`` gives."""
    return SpeakerRate(sum(name in run.results for run in runs),
                       unsupported_runs(runs, name),
                       view.summary(sample_values(runs, pick)))


def unsupported_runs(runs: Sequence[RunScore], name: str) -> int:
    """Runs that measure ``name`` refused because the system does not give what it needs."""
    return sum(run.status.get(name, "").startswith("unsupported") for run in runs)
