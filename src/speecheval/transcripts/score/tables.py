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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..aggregate import CrossScenario, SampleValue, cross_scenario, summarise
from ..diarization.render import score_dict
from ..diarization.result import DiarizationScore
from ..maturity import (
    Maturity,
    ScenarioEvidence,
    combined_maturity,
    run_maturity,
    scenario_maturity,
)
from ..text.counts import ErrorCounts
from ..text.moss_parity import corpus_table
from ..timestamps.segment_pairs import SegmentPairTiming
from .capabilities import SystemSupport
from .manifest import Manifest, Scenario
from .measure import RunScore, pool, selected_measures
from .measures.diarization import Diarization
from .measures.hallucination import hallucination_samples
from .measures.moss_parity import MossParity
from .measures.text import RATE_NAMES, Text, text_sample_values
from .measures.timestamps import Timestamps


@dataclass(frozen=True)
class Tables:
    """Everything the writers need: main tables, parity tracks, maturity."""

    scenarios: dict[str, dict[str, Any]]
    cross_scenario: dict[str, Any]
    run_maturity: Maturity
    system_support: SystemSupport
    moss_parity: dict[str, Any]
    lattifai_parity: dict[str, Any]
    timestamp_diagnostic: dict[str, Any]
    text_counts: dict[str, dict[int, ErrorCounts]]
    lineage: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    """Runs whose transcript is a ``transcripts run`` artefact (:mod:`.origins`)."""


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
                                missing)

    def summary(self, values: list[SampleValue]) -> dict[str, Any] | None:
        """Rate summary with the maturity of the samples that give a rate."""
        if not values:
            return None
        return {**summarise(values).report_dict(), **self.maturity(_yielding(values))}

    def maturity(self, sample_ids: set[str]) -> dict[str, Any]:
        """``maturity`` and ``evidence`` entries for a measure yielded by ``sample_ids``."""
        level = self.level(sample_ids)
        if not sample_ids:
            return {"maturity": level.report_dict(), "evidence": None}
        ev = self.evidence(sample_ids)
        return {"maturity": level.report_dict(),
                "evidence": {"samples": ev.samples, "independent_sources": ev.sources,
                             "independent_speakers": ev.speakers,
                             "missing_runs": ev.missing_runs}}

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


def build_tables(manifest: Manifest, runs: Sequence[RunScore],
                 support: SystemSupport) -> Tables:
    """Group runs by scenario and build every table."""
    scenarios: dict[str, dict[str, Any]] = {}
    evidence: dict[str, tuple[ScenarioEvidence, Maturity]] = {}
    text_levels: dict[str, tuple[bool, Maturity]] = {}
    text_values: dict[str, list[SampleValue]] = {}
    moss: dict[str, Any] = {}
    lattifai: dict[str, Any] = {}
    diagnostic: dict[str, Any] = {}
    counts: dict[str, dict[int, ErrorCounts]] = {}
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
        counts[name] = _counts_by_repeat(mine)
        scenarios[name] = {
            "scenario": name, "unit": spec.unit, "rate_name": RATE_NAMES[spec.unit],
            "core": spec.core, "maturity": maturity.report_dict(), "maturity_measure": headline,
            "samples": ev.samples, "independent_sources": ev.sources,
            "independent_speakers": ev.speakers, "missing_runs": ev.missing_runs,
            "runs": len(mine), "failed_runs": sum(r.failure is not None for r in mine),
            "text_counts_by_repeat": {str(k): v.report_dict()
                                      for k, v in counts[name].items()},
            **{measure.name: measure.table(mine, view) for measure in scenario_measures},
        }
        moss_samples = [m for r in mine if (m := r.get(MossParity)) is not None]
        moss[name] = (corpus_table(moss_samples).report_dict() if moss_samples else None)
        parity_total: DiarizationScore | None = pool(
            d.lattifai for r in mine if (d := r.get(Diarization)) is not None)
        lattifai[name] = (None if parity_total is None
                               else score_dict(parity_total, exclude_overlap=False))
        pairs: SegmentPairTiming | None = pool(
            t.segment_pairs for r in mine if (t := r.get(Timestamps)) is not None)
        diagnostic[name] = None if pairs is None else pairs.report_dict()
    overall = run_maturity(evidence, manifest.required_repeats)
    cross = _cross(manifest, text_values, text_levels, overall)
    return Tables(scenarios, cross, overall, support, moss, lattifai, diagnostic, counts)


def _cross(manifest: Manifest, values: dict[str, list[SampleValue]],
           levels: dict[str, tuple[bool, Maturity]], run: Maturity) -> dict[str, Any]:
    """Scenario macros per rate, each with the combined maturity of its scenarios."""
    by_rate: dict[str, Any] = {}
    for unit, rate in RATE_NAMES.items():
        names = [name for name, spec in manifest.scenarios.items()
                 if spec.unit == unit and values[name]]
        if names:
            result: CrossScenario = cross_scenario({n: values[n] for n in names})
            by_rate[rate] = {**result.report_dict(), "maturity": combined_maturity(
                {n: levels[n] for n in names}, run).report_dict()}
    return {"run_maturity": run.report_dict(), "by_rate": by_rate}




