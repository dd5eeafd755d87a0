"""The MOSS parity track: raw tagged reference and output compared as MOSS does."""

from __future__ import annotations

from ...text.moss_parity import MossSample, score_sample
from ..measure import Measure, Outcome, RunInputs


class MossParity(Measure[MossSample]):
    """Needs raw tagged text on both sides (``.txt``); a failed run is empty output."""

    name = "moss_parity"
    in_sample_row = False
    in_scenario_table = False

    def score(self, inputs: RunInputs) -> Outcome[MossSample]:
        reference, hypothesis = inputs.reference.raw, inputs.hypothesis.raw
        if reference is None or hypothesis is None:
            return Outcome(status={"moss_parity": "needs raw tagged reference and hypothesis "
                                                  "(.txt)"})
        return Outcome(score_sample(inputs.sample.id, reference, hypothesis))
