"""Text error rate (WER, CER or MER by the scenario's unit) of speech and low-speech runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...text.counts import ErrorCounts
from ...text.tokenize import Unit
from ..manifest import NON_SPEECH_KINDS
from ..measure import Measure, Outcome, RunInputs, RunScore, ScenarioView, sample_values
from ..table_entries import Rate

RATE_NAMES: dict[Unit, str] = {"word": "wer", "char": "cer", "mixed": "mer"}


class Text(Measure[ErrorCounts]):
    """Edit counts of the aligned tokens; the scenario table summarises the rate."""

    name = "text"

    def score(self, inputs: RunInputs) -> Outcome[ErrorCounts]:
        kind = inputs.sample.kind
        if kind in NON_SPEECH_KINDS:
            return Outcome(status={"text": f"{kind} sample: no reference transcript"})
        return Outcome(inputs.alignment.path.counts())

    def row(self, result: ErrorCounts, run: RunScore) -> Any:
        return {RATE_NAMES[run.unit]: result.error_rate, **result.report_dict()}

    def table(self, runs: Sequence[RunScore], view: ScenarioView) -> Rate | None:
        return view.summary(text_sample_values(runs))


def text_sample_values(runs: Sequence[RunScore]) -> list[Any]:
    """Per-run (errors, reference tokens) of the runs with a text rate."""
    def pick(run: RunScore) -> tuple[float, float] | None:
        counts = run.get(Text)
        return None if counts is None else (counts.errors, counts.reference_tokens)
    return sample_values(runs, pick)
