"""The MOSS parity track: reference and output compared as MOSS does.

Raw tagged text (``.txt``) is read as it is; a transcript in any other format (SegLST, STM,
...) is first written as tagged text (:func:`~...text.moss_parity.tagged_text`), so a
run's own SegLST outputs get the track too.
"""

from __future__ import annotations

from ...text.moss_parity import MossSample, score_sample, tagged_text
from ..measure import Measure, Outcome, RunInputs, Side


class MossParity(Measure[MossSample]):
    """Scored on every run with a reference transcript; a failed run is empty output."""

    name = "moss_parity"
    in_sample_row = False
    in_scenario_table = False

    def score(self, inputs: RunInputs) -> Outcome[MossSample]:
        if inputs.sample.reference.transcript is None:
            return Outcome(status={"moss_parity": "needs a reference transcript"})
        return Outcome(score_sample(inputs.sample.id, _tagged(inputs.reference),
                                    _tagged(inputs.hypothesis)))


def _tagged(side: Side) -> str:
    """The side as raw tagged text: its raw text, else its segments written so."""
    return side.raw if side.raw is not None else tagged_text(side.segments)
