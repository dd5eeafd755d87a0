"""Hallucinated output on silence, music and low-speech samples."""

from __future__ import annotations

from collections.abc import Sequence

from ...text.hallucination import HallucinationCounts, hallucination
from ..manifest import HALLUCINATION_KINDS, NON_SPEECH_KINDS
from ..measure import Measure, Outcome, RunInputs, RunScore, ScenarioView, pool
from ..table_entries import Graded


class Hallucination(Measure[HallucinationCounts]):
    """Failed runs are left out and counted; the scenario entry carries its maturity."""

    name = "hallucination"

    def score(self, inputs: RunInputs) -> Outcome[HallucinationCounts]:
        sample = inputs.sample
        if sample.kind not in HALLUCINATION_KINDS:
            return Outcome()
        if inputs.failed:
            return Outcome(status={"hallucination": "failed run: excluded and counted"})
        # Low speech has a reference: only what the system inserts is hallucinated.
        return Outcome(hallucination(inputs.hypothesis.text, sample.duration_s,
                                     None if sample.kind in NON_SPEECH_KINDS
                                     else inputs.reference.text))

    def table(self, runs: Sequence[RunScore], view: ScenarioView
              ) -> Graded[HallucinationCounts] | None:
        total: HallucinationCounts | None = pool(run.get(Hallucination) for run in runs)
        if total is None:
            return None
        return view.graded(total, hallucination_samples(runs))


def hallucination_samples(runs: Sequence[RunScore]) -> set[str]:
    """Samples with a hallucination result (the evidence of that measure)."""
    return {run.sample.id for run in runs if run.get(Hallucination) is not None}
