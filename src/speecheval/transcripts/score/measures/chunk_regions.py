"""The text rate, cpWER and DER of a chunked run inside its chunks and near its cuts, apart.

Selected only when some run of the manifest names its chunk cuts (``chunk_cuts``, which
``transcripts score --run`` writes for the chunked track), so every other report is
unchanged. The split is :mod:`..chunk_regions`'; a failed run is empty output (every
reference token of both regions deleted, all speech missed), as in the main rates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...diarization.render import der_dict
from ...diarization.result import DerComponents, DiarizationUnsupported
from ...diarization.score import score_files, total
from ...formats.segment import Segment, has_speakers
from ...formats.uem import UEM
from ...text.counts import ErrorCounts
from ...text.cp import cp_error_rate
from ...text.rates import text_error_counts
from ..chunk_regions import REGIONS, Cuts, split, time_regions
from ..inputs import flat_text
from ..measure import Measure, Outcome, RunInputs, RunScore, ScenarioView
from ..options import MeasureOptions
from .cp import speaker_refusal
from .text import RATE_NAMES


@dataclass(frozen=True)
class RegionScore:
    """One region of one run (or pooled over runs): the text counts, the cp counts
    (``None``: not scored) and the main-protocol DER components (``None``: not scored)."""

    text: ErrorCounts
    cp: ErrorCounts | None
    der: DerComponents | None

    def report_dict(self, rate: str) -> dict[str, Any]:
        """The region's numbers as ``samples.jsonl`` and ``scenarios.json`` hold them."""
        return {rate: self.text.error_rate, **self.text.report_dict(),
                "cp" + rate: None if self.cp is None else self.cp.error_rate,
                "cp_errors": None if self.cp is None else self.cp.errors,
                "der": None if self.der is None else der_dict(self.der)}


@dataclass(frozen=True)
class ChunkRegions:
    """Both regions of one run, the granularity split (``words`` or ``segments``), how
    many cuts and the margin."""

    granularity: str
    cuts: int
    margin_s: float
    regions: Mapping[str, RegionScore]


@dataclass(frozen=True)
class ChunkRegionsEntry:
    """A scenario's regions pooled over its chunked runs (micro rates: summed errors over
    summed reference tokens or scored time), with how many runs each part pools."""

    rate_name: str
    runs: int
    cp_runs: int
    der_runs: int
    regions: Mapping[str, RegionScore]

    def report_dict(self) -> dict[str, Any]:
        """The entry as ``scenarios.json`` holds it."""
        return {"runs": self.runs, "cp_runs": self.cp_runs, "der_runs": self.der_runs,
                **{name: self.regions[name].report_dict(self.rate_name) for name in REGIONS}}


class ChunkRegionScores(Measure[ChunkRegions]):
    """Needs the run's cuts and timed segments on both sides; cp as cpWER needs it, DER
    as the diarization measure needs it (reference turns, timed system speakers)."""

    name = "chunk_regions"

    def selected(self, options: MeasureOptions) -> bool:
        return options.chunk_regions

    def score(self, inputs: RunInputs) -> Outcome[ChunkRegions]:
        spec = inputs.run.chunk_cuts
        if spec is None:
            return Outcome(status={"chunk_regions": "not a chunked run (no chunk_cuts)"})
        cuts = Cuts(tuple(spec.cuts_s), spec.margin_s)
        granularity, ref_rows, hyp_rows = _rows(inputs)
        ref_parts, hyp_parts = split(ref_rows, cuts), split(hyp_rows, cuts)
        if ref_parts is None or hyp_parts is None:
            side = "reference" if ref_parts is None else "system"
            return Outcome(status={"chunk_regions": f"a {side} segment has no start or end "
                                                    "time, so it cannot be placed"})
        with_cp = speaker_refusal(inputs) is None
        ders = _ders(inputs, cuts)
        regions = {}
        for name in REGIONS:
            ref, hyp = ref_parts[name], hyp_parts[name]
            regions[name] = RegionScore(
                text_error_counts(flat_text(ref), flat_text(hyp), inputs.unit),
                cp_error_rate(ref, hyp, inputs.unit).counts if with_cp else None,
                None if ders is None else ders[name])
        return Outcome(ChunkRegions(granularity, len(cuts.cuts_s), cuts.margin_s, regions))

    def row(self, result: ChunkRegions, run: RunScore) -> Any:
        rate = RATE_NAMES[run.unit]
        return {"granularity": result.granularity, "cuts": result.cuts,
                "cut_margin_s": result.margin_s,
                **{name: result.regions[name].report_dict(rate) for name in REGIONS}}

    def table(self, runs: Sequence[RunScore], view: ScenarioView) -> ChunkRegionsEntry | None:
        scored = [result for run in runs if (result := run.get(ChunkRegionScores)) is not None]
        if not scored:
            return None
        pooled = {}
        for name in REGIONS:
            parts = [result.regions[name] for result in scored]
            cps = [p.cp for p in parts if p.cp is not None]
            ders = [p.der for p in parts if p.der is not None]
            pooled[name] = RegionScore(sum((p.text for p in parts), ErrorCounts.zero()),
                                       sum(cps, ErrorCounts.zero()) if cps else None,
                                       _summed(ders))
        return ChunkRegionsEntry(
            RATE_NAMES[runs[0].unit], len(scored),
            sum(1 for r in scored if r.regions[REGIONS[0]].cp is not None),
            sum(1 for r in scored if any(p.der is not None for p in r.regions.values())),
            pooled)


def _summed(parts: list[DerComponents]) -> DerComponents | None:
    if not parts:
        return None
    found = parts[0]
    for part in parts[1:]:
        found = found + part
    return found


def _rows(inputs: RunInputs) -> tuple[str, tuple[Segment, ...], tuple[Segment, ...]]:
    """Which rows to split: the word-timed ones when both sides have them with the same
    speaker attribution as their segments, else the segments (a failed run has none)."""
    ref, hyp = inputs.reference, inputs.hypothesis
    if ref.words is not None and hyp.words is not None and not inputs.failed and all(
            has_speakers(side.words) == has_speakers(side.segments)
            for side in (ref, hyp) if side.words is not None):
        return "words", ref.words, hyp.words
    return "segments", ref.segments, hyp.segments


def _ders(inputs: RunInputs, cuts: Cuts) -> Mapping[str, DerComponents | None] | None:
    """The main-protocol DER components of each region (time regions as UEMs); ``None``
    when the run has no DER (no reference turns, no timed system speakers)."""
    reference = inputs.reference.turns
    hyp = inputs.hypothesis.turns  # a failed run's: no turns
    if reference is None or hyp is None or (inputs.failed and not inputs.support.speakers):
        return None
    file_id = f"{inputs.sample.id}#repeat{inputs.run.repeat}"
    ref_rttm, hyp_rttm = reference.renamed(file_id), hyp.renamed(file_id)
    found: dict[str, DerComponents | None] = {}
    for name, spans in time_regions(cuts, inputs.sample.duration_s).items():
        if not spans:
            found[name] = None
            continue
        scored = score_files(ref_rttm, hyp_rttm, UEM.from_regions({file_id: spans}))
        if isinstance(scored, DiarizationUnsupported):
            return None
        found[name] = total(scored).overlap_included
    return found
