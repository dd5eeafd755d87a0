"""WDER: which speaker said each recognised word, after the best speaker mapping."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...text.wder import WderResult, wder
from ..measure import Measure, Outcome, RunInputs, RunScore, ScenarioView
from ..table_entries import SpeakerRate
from .cp import rate_table, speaker_refusal


class WordDiarizationError(Measure[WderResult]):
    """Gated as cpWER (reference and system speakers needed); a failed run aligns no word,
    so it has no WDER (its cpWER already counts it) and is noted in ``status``."""

    name = "wder"

    def score(self, inputs: RunInputs) -> Outcome[WderResult]:
        refusal = speaker_refusal(inputs)
        if refusal is None and inputs.failed:
            refusal = "failed run: no word aligned"
        if refusal is not None:
            return Outcome(status={"wder": refusal})
        return Outcome(wder(inputs.reference.segments, inputs.hypothesis.segments, inputs.unit))

    def row(self, result: WderResult, run: RunScore) -> Any:
        return {"wder": result.error_rate, "aligned_tokens": result.aligned_words,
                "speaker_errors": result.speaker_errors}

    def table(self, runs: Sequence[RunScore], view: ScenarioView) -> SpeakerRate:
        def pick(run: RunScore) -> tuple[float, float] | None:
            result = run.get(WordDiarizationError)
            if result is None or not result.aligned_words:
                return None
            return (result.speaker_errors, result.aligned_words)
        return rate_table(runs, view, self.name, pick)
