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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..aggregate import CrossScenario, SampleValue, cross_scenario, summarise
from ..diarization.render import score_dict
from ..diarization.result import DerComponents, DiarizationScore
from ..maturity import (
    Maturity,
    ScenarioEvidence,
    combined_maturity,
    run_maturity,
    scenario_maturity,
)
from ..text.counts import ErrorCounts
from ..text.moss_parity import corpus_table
from ..text.tokenize import Unit
from ..timestamps.coverage import SpeechCoverage
from ..timestamps.segment_pairs import SegmentPairTiming
from ..timestamps.token_times import TokenTiming
from ..timestamps.turns import TurnTiming
from .capabilities import SystemSupport
from .manifest import Manifest, Scenario
from .sample import RunScore

RATE_NAMES: dict[Unit, str] = {"word": "wer", "char": "cer", "mixed": "mer"}
T = TypeVar("T")


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


def _pool(items: Iterable[T | None]) -> T | None:
    present = [item for item in items if item is not None]
    if not present:
        return None
    total = present[0]
    for item in present[1:]:
        total = total + item  # type: ignore[operator]
    return total


def _values(runs: Sequence[RunScore], pick: Callable[[RunScore], tuple[float, float] | None]
            ) -> list[SampleValue]:
    result = []
    for run in runs:
        pair = pick(run)
        if pair is not None:
            result.append(SampleValue(run.sample.id, run.repeat, run.sample.duration_s,
                                      pair[0], pair[1], run.failure is not None))
    return result


def _text_pair(run: RunScore) -> tuple[float, float] | None:
    return None if run.text is None else (run.text.errors, run.text.reference_tokens)


def _cp_pair(run: RunScore) -> tuple[float, float] | None:
    return None if run.cp is None else (run.cp.counts.errors, run.cp.counts.reference_tokens)


def _der_pair(part: Callable[[DiarizationScore], DerComponents]
              ) -> Callable[[RunScore], tuple[float, float] | None]:
    def pick(run: RunScore) -> tuple[float, float] | None:
        if run.diarization is None:
            return None
        components = part(run.diarization)
        return float(components.error_us), float(components.scored_us)
    return pick


class _Measures:
    """Evidence and maturity of each measure of one scenario, from the samples yielding it."""

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
        if run.text is not None:
            result[run.repeat] = result.get(run.repeat, ErrorCounts.zero()) + run.text
    return dict(sorted(result.items()))


def _timestamps(runs: Sequence[RunScore]) -> dict[str, Any]:
    results = [r.timestamps for r in runs if r.timestamps is not None]
    turns: TurnTiming | None = _pool(t.turns for t in results)
    tokens: TokenTiming | None = _pool(t.tokens for t in results)
    speech: SpeechCoverage | None = _pool(t.speech for t in results
                                          if t.granularity == "token")
    boundaries: dict[str, Any] | None = None
    with_bounds = [t.boundaries for t in results if t.boundaries is not None
                   and t.granularity == "token"]
    if with_bounds:
        keys = sorted(with_bounds[0])
        boundaries = {k: _pool(b[k] for b in with_bounds).report_dict()  # type: ignore[union-attr]
                      for k in keys}
    granularity = {g: sum(1 for t in results if t.granularity == g)
                   for g in ("token", "segment", "unsupported")}
    return {
        "runs_by_granularity": granularity,
        "runs_without_timestamp_scoring": len(runs) - len(results),
        "turns": None if turns is None else turns.report_dict(),
        "tokens": None if tokens is None else tokens.report_dict(),
        "turn_boundaries": boundaries,
        "speech": None if speech is None else speech.report_dict(),
    }


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
    for name, spec in manifest.scenarios.items():
        mine = [r for r in runs if r.sample.scenario == name]
        measures = _Measures(manifest, name, spec)
        ev = measures.evidence({s.id for s in measures.samples})
        text_values[name] = _values(mine, _text_pair)
        halluc_samples = {r.sample.id for r in mine if r.hallucination is not None}
        text_samples = _yielding(text_values[name])
        headline = "text" if text_samples else "hallucination" if halluc_samples else None
        maturity = measures.level(text_samples or halluc_samples)
        text_levels[name] = (spec.core, measures.level(text_samples))
        evidence[name] = (ev, maturity)
        counts[name] = _counts_by_repeat(mine)
        cp_runs = [r for r in mine if r.cp is not None]
        diar_runs = [r for r in mine if r.diarization is not None]
        diar_total: DiarizationScore | None = _pool(r.diarization for r in diar_runs)
        halluc = _pool(r.hallucination for r in mine)
        scenarios[name] = {
            "scenario": name, "unit": spec.unit, "rate_name": RATE_NAMES[spec.unit],
            "core": spec.core, "maturity": maturity.report_dict(), "maturity_measure": headline,
            "samples": ev.samples, "independent_sources": ev.sources,
            "independent_speakers": ev.speakers, "missing_runs": ev.missing_runs,
            "runs": len(mine), "failed_runs": sum(r.failure is not None for r in mine),
            "text": measures.summary(text_values[name]),
            "text_counts_by_repeat": {str(k): v.report_dict()
                                      for k, v in counts[name].items()},
            "cp": {"scored_runs": len(cp_runs),
                   "unsupported_runs": sum(r.status.get("cp", "").startswith("unsupported")
                                           for r in mine),
                   "rate": measures.summary(_values(mine, _cp_pair))},
            "diarization": {
                "scored_runs": len(diar_runs),
                "unsupported_runs": sum(r.status.get("diarization", "").startswith(
                    "unsupported") for r in mine),
                "der": measures.summary(_values(mine, _der_pair(
                    lambda d: d.overlap_included))),
                "der_overlap_excluded": measures.summary(_values(mine, _der_pair(
                    lambda d: d.overlap_excluded))),
                "der_overlap_only": measures.summary(_values(mine, _der_pair(
                    lambda d: d.overlap_only))),
                "pooled": None if diar_total is None else score_dict(diar_total,
                                                                     exclude_overlap=False),
            },
            "punctuation": _dict(_pool(r.punctuation for r in mine)),
            "numbers": _dict(_pool(r.numbers for r in mine)),
            "terms": _dict(_pool(r.terms for r in mine)),
            "hallucination": (None if halluc is None
                              else {**halluc.report_dict(), **measures.maturity(halluc_samples)}),
            "timestamps": _timestamps(mine),
        }
        moss_samples = [r.moss for r in mine if r.moss is not None]
        moss[name] = (corpus_table(moss_samples).report_dict() if moss_samples else None)
        parity_total: DiarizationScore | None = _pool(r.lattifai for r in mine)
        lattifai[name] = (None if parity_total is None
                               else score_dict(parity_total, exclude_overlap=False))
        pairs: SegmentPairTiming | None = _pool(
            r.timestamps.segment_pairs for r in mine if r.timestamps is not None)
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


def _dict(value: Any) -> dict[str, Any] | None:
    return None if value is None else dict(value.report_dict())


