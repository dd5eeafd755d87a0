"""DER/JER of the run's speaker turns over ``[0, duration]``: the main protocol (+-0.25 s
collar) and the LattifAI parity track (+-0.1 s), computed together."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...diarization.render import score_dict
from ...diarization.result import DerComponents, DiarizationScore, DiarizationUnsupported
from ...diarization.score import score_files, score_lattifai_parity, total
from ...diarization.scoring_region import clipped_turns
from ...formats.rttm import RTTM
from ...formats.segment import has_speakers
from ...formats.uem import UEM
from ..inputs import rttm_from_segments
from ..measure import Measure, Outcome, RunInputs, RunScore, ScenarioView, pool, sample_values
from ..table_entries import DiarizationEntry
from .cp import unsupported_runs


@dataclass(frozen=True)
class DiarizationRun:
    """Both protocols' scores of one run."""

    main: DiarizationScore
    lattifai: DiarizationScore


class Diarization(Measure[DiarizationRun]):
    """Needs reference speaker turns; without timed system speakers: ``unsupported``."""

    name = "diarization"

    def score(self, inputs: RunInputs) -> Outcome[DiarizationRun]:
        sample, reference = inputs.sample, inputs.reference.turns
        hyp, untimed = _system_turns(inputs)
        if reference is None:
            return Outcome(status={"diarization": "no reference speaker turns"})
        if hyp is None or (inputs.failed and not inputs.support.speakers):
            return Outcome(status={"diarization": "unsupported: the system gives no timed "
                                                  "speaker attribution"})
        # One file id per run, so the runs of a sample add up as distinct files.
        file_id = f"{sample.id}#repeat{inputs.run.repeat}"
        ref_rttm, run_rttm = reference.renamed(file_id), hyp.renamed(file_id)
        uem = UEM.from_regions({file_id: ((0.0, sample.duration_s),)})
        main = score_files(ref_rttm, run_rttm, uem)
        parity = score_lattifai_parity(ref_rttm, run_rttm, uem)
        if isinstance(main, DiarizationUnsupported):
            return Outcome(status={"diarization": f"unsupported: {main.reason}"})
        assert not isinstance(parity, DiarizationUnsupported)
        notes = {} if not untimed else {"diarization_untimed_turns": (
            f"{untimed} of {len(inputs.hypothesis.segments)} system turns have no start or "
            "end time: DER is scored over the timed turns, the reference speech of the "
            "others counts as missed")}
        clipped = _clipped_note(inputs, hyp)
        if clipped is not None:
            notes["diarization_clipped"] = clipped
        return Outcome(DiarizationRun(total(main), total(parity)), notes)

    def row(self, result: DiarizationRun, run: RunScore) -> Any:
        return score_dict(result.main, exclude_overlap=False)

    def table(self, runs: Sequence[RunScore], view: ScenarioView) -> DiarizationEntry:
        scored = [result for run in runs if (result := run.get(Diarization)) is not None]
        pooled: DiarizationScore | None = pool(result.main for result in scored)
        return DiarizationEntry(
            scored_runs=len(scored), unsupported_runs=unsupported_runs(runs, self.name),
            der=view.summary(_der_values(runs, lambda d: d.overlap_included)),
            der_overlap_excluded=view.summary(_der_values(runs, lambda d: d.overlap_excluded)),
            der_overlap_only=view.summary(_der_values(runs, lambda d: d.overlap_only)),
            pooled=pooled)


def _der_values(runs: Sequence[RunScore],
                part: Callable[[DiarizationScore], DerComponents]) -> list[Any]:
    def pick(run: RunScore) -> tuple[float, float] | None:
        result = run.get(Diarization)
        if result is None:
            return None
        components = part(result.main)
        return float(components.error_us), float(components.scored_us)
    return sample_values(runs, pick)


def _system_turns(inputs: RunInputs) -> tuple[RTTM | None, int]:
    """The system's speaker turns, and how many of its speaker segments were left out.

    A transcript whose every segment names a speaker but some lack a start or an end (a
    cut answer's last segment) gives its timed segments as turns: the reference speech
    the others would have covered is no system speech, so it counts as missed, and one
    untimed segment no longer leaves the whole sample unscored."""
    side = inputs.hypothesis
    if side.turns is not None or inputs.run.rttm is not None or not has_speakers(
            side.segments):
        return side.turns, 0
    timed = [s for s in side.segments if s.start is not None and s.end is not None]
    if not timed:
        return None, 0
    return (rttm_from_segments(timed, inputs.sample.id, inputs.run.transcript),
            len(side.segments) - len(timed))


def _clipped_note(inputs: RunInputs, hyp: RTTM | None) -> str | None:
    """Say how many turns run past ``duration_s`` and were cut there, if any."""
    sample = inputs.sample
    uem = UEM.from_regions({sample.id: ((0.0, sample.duration_s),)})
    parts = [(side, clipped_turns(rttm, uem)) for side, rttm in
             (("reference", inputs.reference.turns), ("system", hyp))
             if rttm is not None]
    cut = [f"{side} {c['turns']} ({c['seconds']:g} s)" for side, c in parts if c["turns"]]
    if not cut:
        return None
    return f"turns past duration_s {sample.duration_s:g} s cut there: " + ", ".join(cut)
