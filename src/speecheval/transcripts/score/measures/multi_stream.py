"""ORC-WER and tcpWER as score measures (meeteval's, beyond the spec; chosen in the
manifest's ``extra_measures``).

Both work on the scenario's tokens: each segment's text is normalised and split in the
scenario's unit (words, characters, or mixed) exactly as cpWER's are, and the tokens are
handed to :mod:`..text.orc` / :mod:`..text.tcp`, which split on whitespace as meeteval
does. A failed run of a system that attributes speakers is empty output (every reference
token deleted), as for cpWER; one of a system without speakers is ``unsupported``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...formats.segment import has_speakers, is_timed
from ...text.cp import CpResult
from ...text.orc import OrcResult, orc_error_rate
from ...text.tcp import tcp_error_rate
from ...text.tokenize import Unit
from ...text.tokenized import tokenized_segments
from ..manifest import NON_SPEECH_KINDS
from ..measure import Measure, Outcome, RunInputs, RunScore, ScenarioView
from ..options import MeasureOptions
from ..table_entries import CollaredSpeakerRate, SpeakerRate
from .cp import error_pair, rate_table, speaker_refusal
from .text import RATE_NAMES

ORC_DEFINITION = ("meeteval orcwer: reference speakers ignored, each reference segment "
                  "(by start time) assigned to the hypothesis speaker stream that minimises "
                  "the total errors; exact solver")
TCP_DEFINITION = ("meeteval tcpwer: cpWER in which a reference and a hypothesis token pair "
                  "only when their spans overlap; reference spans character_based, "
                  "hypothesis character_based_points widened by the collar")


def settings(options: MeasureOptions) -> dict[str, Any]:
    """What ``run.json`` records about the selected measures beyond the spec (nothing
    when none is selected, so a plain manifest's provenance is unchanged)."""
    chosen: dict[str, Any] = {}
    if options.orc:
        chosen["orc_definition"] = ORC_DEFINITION
    if options.tcp_collar_s is not None:
        chosen["tcp_definition"] = TCP_DEFINITION
        chosen["tcp_collar_s"] = options.tcp_collar_s
    return chosen


def _rate_key(prefix: str, unit: Unit) -> str:
    return prefix + RATE_NAMES[unit]


class OptimalReferenceCombination(Measure[OrcResult]):
    """ORC-WER/CER/MER: needs a speech sample and hypothesis speakers (reference speakers
    are not used); a session beyond the exact solver's limits is noted, not scored."""

    name = "orc"

    def selected(self, options: MeasureOptions) -> bool:
        return options.orc

    def score(self, inputs: RunInputs) -> Outcome[OrcResult]:
        refusal = _stream_refusal(inputs)
        if refusal is not None:
            return Outcome(status={"orc": refusal})
        try:
            return Outcome(orc_error_rate(
                tokenized_segments(inputs.reference.segments, inputs.unit),
                tokenized_segments(inputs.hypothesis.segments, inputs.unit)))
        except ValueError as exc:
            return Outcome(status={"orc": f"not scored: {exc}"})

    def row(self, result: OrcResult, run: RunScore) -> Any:
        return {_rate_key("orc", run.unit): result.error_rate, **result.counts.report_dict(),
                "assignment": list(result.assignment)}

    def table(self, runs: Sequence[RunScore], view: ScenarioView) -> SpeakerRate:
        return rate_table(runs, view, self.name, error_pair(self.name))


class TimeConstrainedPermutation(Measure[CpResult]):
    """tcpWER/CER/MER: gated as cpWER, and both sides' segments need start and end times."""

    name = "tcp"

    def selected(self, options: MeasureOptions) -> bool:
        return options.tcp_collar_s is not None

    def score(self, inputs: RunInputs) -> Outcome[CpResult]:
        collar = inputs.options.tcp_collar_s
        assert collar is not None  # selected() holds
        refusal = speaker_refusal(inputs)
        if refusal is None and not is_timed(inputs.reference.segments):
            refusal = "reference segments lack start/end times"
        if refusal is None and not inputs.failed and not is_timed(inputs.hypothesis.segments):
            refusal = "unsupported: the system's segments lack start/end times"
        if refusal is not None:
            return Outcome(status={"tcp": refusal})
        return Outcome(tcp_error_rate(
            tokenized_segments(inputs.reference.segments, inputs.unit),
            tokenized_segments(inputs.hypothesis.segments, inputs.unit), collar))

    def row(self, result: CpResult, run: RunScore) -> Any:
        return {**result.report_dict(_rate_key("tcp", run.unit)),
                "collar_s": run.options.tcp_collar_s}

    def table(self, runs: Sequence[RunScore], view: ScenarioView) -> CollaredSpeakerRate:
        collar = runs[0].options.tcp_collar_s if runs else None
        rate = rate_table(runs, view, self.name, error_pair(self.name))
        return CollaredSpeakerRate(rate.scored_runs, rate.unsupported_runs, rate.rate, collar)


def _stream_refusal(inputs: RunInputs) -> str | None:
    """Why ORC cannot score this run: it needs a speech sample and hypothesis streams
    (speakers), or a failed run of a system that attributes speakers."""
    if inputs.sample.kind in NON_SPEECH_KINDS:
        return f"{inputs.sample.kind} sample"
    if not has_speakers(inputs.hypothesis.segments) and not (inputs.failed
                                                             and inputs.support.speakers):
        return "unsupported: the system gives no speaker attribution"
    return None

