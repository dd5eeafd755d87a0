"""Scenario tables from run scores: the main protocol, and each parity track on its own.

Rates (text, cp, DER variants) go through :mod:`..aggregate` (sample macro, corpus
micro, duration-weighted column, repeats, intervals). Each rate summary (and the
hallucination counts) carries its own maturity, from the evidence of the samples that
yield that measure; a scenario's headline maturity is its text rate's (its
hallucination's when no sample has a reference transcript), and each cross-scenario value
gets the combined level of the scenarios it averages. Counts without a per-sample rate
(punctuation, numbers, terms, hallucination, JER, speaker count, timestamps) are pooled
over every run of the scenario. Parity tracks and the segment-timestamp diagnostic are
built here too but returned separately and written to their own files and tables.

Everything here is typed: a :class:`ScenarioTable` per scenario (its maturity a
:class:`~..maturity.Maturity`, its measures' entries those of :mod:`.table_entries`), the
cross-scenario values, the parity tracks as their results. The writers (:mod:`.files`,
:mod:`.report_tables`, :mod:`..report_html`) read them by attribute and turn them into
file shapes through ``report_dict()``; no dict is built before a writer asks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ...core.results import Reported
from ..aggregate import CrossScenario, SampleValue, cross_scenario, summarise
from ..diarization.result import DiarizationScore
from ..maturity import (
    Maturity,
    ScenarioEvidence,
    combined_maturity,
    run_maturity,
    scenario_maturity,
)
from ..text.counts import ErrorCounts
from ..text.moss_parity import MossParityTable, corpus_table
from ..text.tokenize import Unit
from ..timestamps.segment_pairs import SegmentPairTiming
from .audit import SYNTHETIC_SUFFIX, ScenarioAudit, scenario_audits
from .capabilities import SystemSupport
from .manifest import Manifest, Scenario
from .measure import RunScore, pool, selected_measures
from .measures.diarization import Diarization
from .measures.hallucination import hallucination_samples
from .measures.moss_parity import MossParity
from .measures.text import RATE_NAMES, Text, text_sample_values
from .measures.timestamps import Timestamps
from .origins import TranscriptOrigin
from .table_entries import Graded, Rate, V, evidence_dict

E = TypeVar("E")


def file_value(entry: object) -> object:
    """A measure's entry as a file holds it: a result through its ``report_dict()``, a
    plain value (a measure may report a number) as it is."""
    return entry.report_dict() if isinstance(entry, Reported) else entry


@dataclass(frozen=True)
class ScenarioTable:
    """One scenario's table: its evidence and headline maturity (that of the text rate,
    or of hallucination when no sample has a reference transcript: ``maturity_measure``),
    its runs, the text counts per repeat, and each measure's entry by measure name."""

    scenario: str
    unit: Unit
    core: bool
    maturity: Maturity
    maturity_measure: str | None
    evidence: ScenarioEvidence
    runs: int
    failed_runs: int
    text_counts_by_repeat: Mapping[int, ErrorCounts]
    measures: Mapping[str, object]

    @property
    def rate_name(self) -> str:
        """``wer``, ``cer`` or ``mer``: the text rate of the scenario's unit."""
        return RATE_NAMES[self.unit]

    @property
    def samples(self) -> int:
        """The scenario's samples."""
        return self.evidence.samples

    def entry(self, name: str, kind: type[E]) -> E | None:
        """The entry of measure ``name``, checked to be a ``kind`` (``None``: none, or the
        measure is not selected)."""
        value = self.measures.get(name)
        if value is not None and not isinstance(value, kind):
            raise TypeError(f"scenario {self.scenario!r}: {name} is a "
                            f"{type(value).__name__}, not a {kind.__name__}")
        return value

    @property
    def text(self) -> Rate | None:
        """The text rate (WER, CER or MER), ``None`` when no sample has one."""
        return self.entry(Text.name, Graded)

    def report_dict(self) -> dict[str, Any]:
        """The scenario's entry in ``scenarios.json``."""
        return {
            "scenario": self.scenario, "unit": self.unit, "rate_name": self.rate_name,
            "core": self.core, "maturity": self.maturity.report_dict(),
            "maturity_measure": self.maturity_measure, **(evidence_dict(self.evidence) or {}),
            "runs": self.runs, "failed_runs": self.failed_runs,
            "text_counts_by_repeat": {str(k): v.report_dict()
                                      for k, v in self.text_counts_by_repeat.items()},
            **{name: file_value(entry) for name, entry in self.measures.items()},
        }


@dataclass(frozen=True)
class CrossRate:
    """A scenario macro across scenarios with the combined maturity of its scenarios."""

    value: CrossScenario
    maturity: Maturity

    def report_dict(self) -> dict[str, Any]:
        return {**self.value.report_dict(), "maturity": self.maturity.report_dict()}


@dataclass(frozen=True)
class CrossScenarioTable:
    """The run's maturity and, per text rate, the scenario macro across scenarios."""

    run_maturity: Maturity
    by_rate: Mapping[str, CrossRate]

    def report_dict(self) -> dict[str, Any]:
        return {"run_maturity": self.run_maturity.report_dict(),
                "by_rate": {rate: value.report_dict() for rate, value in self.by_rate.items()}}


@dataclass(frozen=True)
class Tables:
    """Everything the writers need: main tables, parity tracks, maturity."""

    scenarios: Mapping[str, ScenarioTable]
    cross_scenario: CrossScenarioTable
    system_support: SystemSupport
    moss_parity: Mapping[str, MossParityTable | None]
    lattifai_parity: Mapping[str, DiarizationScore | None]
    timestamp_diagnostic: Mapping[str, SegmentPairTiming | None]
    lineage: Mapping[tuple[str, int], TranscriptOrigin] = field(default_factory=dict)
    """Runs whose transcript is a ``transcripts run`` artefact (:mod:`.origins`)."""
    audit: Mapping[str, ScenarioAudit] = field(default_factory=dict)
    """Each scenario's data audit (:mod:`.audit`); empty when no sample declares one."""

    @property
    def run_maturity(self) -> Maturity:
        """The maturity of the whole run (what any cross-scenario value is capped by)."""
        return self.cross_scenario.run_maturity


class _ScenarioView:
    """Evidence and maturity of each measure of one scenario, from the samples yielding it
    (the :class:`~.measure.ScenarioView` that measures build their tables with)."""

    def __init__(self, manifest: Manifest, name: str, spec: Scenario) -> None:
        self.manifest, self.name, self.spec = manifest, name, spec
        self.samples = [s for s in manifest.samples if s.scenario == name]

    def evidence(self, sample_ids: set[str]) -> ScenarioEvidence:
        """Counts over the scenario's samples in ``sample_ids`` (at least one)."""
        samples = [s for s in self.samples if s.id in sample_ids]
        speakers = {name for s in samples for name in s.speakers}
        required = range(1, self.manifest.required_repeats + 1)
        missing = sum(len(set(required) - {r.repeat for r in s.runs}) for s in samples)
        return ScenarioEvidence(self.name, len(samples), len({s.source for s in samples}),
                                len(speakers), self.spec.reference_leak_free, self.spec.core,
                                missing, covers=self.spec.covers)

    def summary(self, values: list[SampleValue]) -> Rate | None:
        """Rate summary with the maturity of the samples that give a rate."""
        if not values:
            return None
        return self.graded(summarise(values), _yielding(values))

    def graded(self, value: V, sample_ids: set[str]) -> Graded[V]:
        """``value`` with the maturity and evidence of the samples that yield it."""
        return Graded(value, self.level(sample_ids),
                      self.evidence(sample_ids) if sample_ids else None)

    def level(self, sample_ids: set[str]) -> Maturity:
        """Maturity of a measure yielded by ``sample_ids``."""
        if not sample_ids:
            return Maturity("pipeline_smoke", ("no sample yields this measure",))
        return scenario_maturity(self.evidence(sample_ids))


def _yielding(values: Sequence[SampleValue]) -> set[str]:
    return {v.sample_id for v in values if v.denominator > 0}


def _counts_by_repeat(runs: Sequence[RunScore]) -> dict[int, ErrorCounts]:
    result: dict[int, ErrorCounts] = {}
    for run in runs:
        text = run.get(Text)
        if text is not None:
            result[run.repeat] = result.get(run.repeat, ErrorCounts.zero()) + text
    return dict(sorted(result.items()))


def build_tables(manifest: Manifest, runs: Sequence[RunScore], support: SystemSupport,
                 lineage: Mapping[tuple[str, int], TranscriptOrigin] | None = None) -> Tables:
    """Group runs by scenario and build every table (``lineage``: the runs whose transcript
    is a ``transcripts run`` artefact, :func:`.origins.transcript_origins`)."""
    scenarios: dict[str, ScenarioTable] = {}
    evidence: dict[str, tuple[ScenarioEvidence, Maturity]] = {}
    text_levels: dict[str, tuple[bool, Maturity]] = {}
    text_values: dict[str, list[SampleValue]] = {}
    moss: dict[str, MossParityTable | None] = {}
    lattifai: dict[str, DiarizationScore | None] = {}
    diagnostic: dict[str, SegmentPairTiming | None] = {}
    scenario_measures = [measure for measure in selected_measures(manifest.measure_options())
                         if measure.in_scenario_table]
    for name, spec in manifest.scenarios.items():
        mine = [r for r in runs if r.sample.scenario == name]
        view = _ScenarioView(manifest, name, spec)
        ev = view.evidence({s.id for s in view.samples})
        text_values[name] = text_sample_values(mine)
        halluc_samples = hallucination_samples(mine)
        text_samples = _yielding(text_values[name])
        headline = "text" if text_samples else "hallucination" if halluc_samples else None
        maturity = view.level(text_samples or halluc_samples)
        text_levels[name] = (spec.core, view.level(text_samples))
        evidence[name] = (ev, maturity)
        scenarios[name] = ScenarioTable(
            scenario=name, unit=spec.unit, core=spec.core, maturity=maturity,
            maturity_measure=headline, evidence=ev, runs=len(mine),
            failed_runs=sum(r.failure is not None for r in mine),
            text_counts_by_repeat=_counts_by_repeat(mine),
            measures={measure.name: measure.table(mine, view) for measure in scenario_measures})
        moss_samples = [m for r in mine if (m := r.get(MossParity)) is not None]
        moss[name] = corpus_table(moss_samples) if moss_samples else None
        lattifai[name] = pool(d.lattifai for r in mine if (d := r.get(Diarization)) is not None)
        diagnostic[name] = pool(t.segment_pairs for r in mine
                                if (t := r.get(Timestamps)) is not None)
    overall = run_maturity(evidence, manifest.required_repeats)
    audits = scenario_audits(manifest)
    cross = CrossScenarioTable(overall, _cross(manifest, text_values, text_levels, overall,
                                               {n for n, a in audits.items() if a.synthetic}))
    return Tables(scenarios, cross, support, moss, lattifai, diagnostic, dict(lineage or {}),
                  audits)


def _cross(manifest: Manifest, values: dict[str, list[SampleValue]],
           levels: dict[str, tuple[bool, Maturity]], run: Maturity,
           synthetic: set[str]) -> dict[str, CrossRate]:
    """Scenario macros per rate, each with the combined maturity of its scenarios; the
    ``synthetic`` scenario groups (:mod:`.audit`) get macros of their own, keyed
    ``<rate> (synthetic)``, never averaged with real scenarios."""
    by_rate: dict[str, CrossRate] = {}
    for unit, rate in RATE_NAMES.items():
        for key, group in ((rate, False), (rate + SYNTHETIC_SUFFIX, True)):
            names = [name for name, spec in manifest.scenarios.items()
                     if spec.unit == unit and values[name] and (name in synthetic) == group]
            if names:
                by_rate[key] = CrossRate(cross_scenario({n: values[n] for n in names}),
                                         combined_maturity({n: levels[n] for n in names}, run))
    return by_rate
