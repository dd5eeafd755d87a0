"""Scenario tables from run scores: the main protocol, and each parity track on its own.

Rates (text, cp, DER variants) go through :mod:`..aggregate` (sample macro, corpus
micro, duration-weighted column, repeats, intervals). Counts without a per-sample rate
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
from ..maturity import Maturity, ScenarioEvidence, run_maturity, scenario_maturity
from ..text.counts import ErrorCounts
from ..text.moss_parity import corpus_table
from ..text.tokenize import Unit
from ..timestamps.coverage import SpeechCoverage
from ..timestamps.segment_pairs import SegmentPairTiming
from ..timestamps.token_times import TokenTiming
from ..timestamps.turns import TurnTiming
from .manifest import Manifest, ScenarioSpec
from .sample import RunScore

RATE_NAMES: dict[Unit, str] = {"word": "wer", "char": "cer", "mixed": "mer"}
T = TypeVar("T")


@dataclass(frozen=True)
class Tables:
    """Everything the writers need: main tables, parity tracks, maturity."""

    scenarios: dict[str, dict[str, Any]]
    cross_scenario: dict[str, Any]
    run_maturity: Maturity
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


def _summary(values: list[SampleValue]) -> dict[str, Any] | None:
    return None if not values else summarise(values).to_dict()


def _evidence(manifest: Manifest, spec: ScenarioSpec, runs: Sequence[RunScore]
              ) -> ScenarioEvidence:
    samples = [s for s in manifest.samples if s.scenario == spec.name]
    speakers = {name for s in samples for name in s.speakers}
    present = {(r.sample.id, r.repeat) for r in runs}
    missing = sum(1 for s in samples for k in range(1, manifest.required_repeats + 1)
                  if (s.id, k) not in present)
    return ScenarioEvidence(spec.name, len(samples), len({s.source for s in samples}),
                            len(speakers), spec.reference_leak_free, spec.core, missing)


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
        boundaries = {k: _pool(b[k] for b in with_bounds).to_dict()  # type: ignore[union-attr]
                      for k in keys}
    granularity = {g: sum(1 for t in results if t.granularity == g)
                   for g in ("token", "segment", "unsupported")}
    return {
        "runs_by_granularity": granularity,
        "runs_without_timestamp_scoring": len(runs) - len(results),
        "turns": None if turns is None else turns.to_dict(),
        "tokens": None if tokens is None else tokens.to_dict(),
        "turn_boundaries": boundaries,
        "speech": None if speech is None else speech.to_dict(),
    }


def build_tables(manifest: Manifest, runs: Sequence[RunScore]) -> Tables:
    """Group runs by scenario and build every table."""
    scenarios: dict[str, dict[str, Any]] = {}
    evidence: dict[str, tuple[ScenarioEvidence, Maturity]] = {}
    text_values: dict[str, list[SampleValue]] = {}
    moss: dict[str, Any] = {}
    lattifai: dict[str, Any] = {}
    diagnostic: dict[str, Any] = {}
    counts: dict[str, dict[int, ErrorCounts]] = {}
    for spec in manifest.scenarios:
        mine = [r for r in runs if r.sample.scenario == spec.name]
        ev = _evidence(manifest, spec, mine)
        maturity = scenario_maturity(ev)
        evidence[spec.name] = (ev, maturity)
        text_values[spec.name] = _values(mine, _text_pair)
        counts[spec.name] = _counts_by_repeat(mine)
        cp_runs = [r for r in mine if r.cp is not None]
        diar_runs = [r for r in mine if r.diarization is not None]
        diar_total: DiarizationScore | None = _pool(r.diarization for r in diar_runs)
        halluc = _pool(r.hallucination for r in mine)
        scenarios[spec.name] = {
            "scenario": spec.name, "unit": spec.unit, "rate_name": RATE_NAMES[spec.unit],
            "core": spec.core, "maturity": maturity.to_dict(),
            "samples": ev.samples, "independent_sources": ev.sources,
            "independent_speakers": ev.speakers, "missing_runs": ev.missing_runs,
            "runs": len(mine), "failed_runs": sum(r.failure is not None for r in mine),
            "text": _summary(text_values[spec.name]),
            "text_counts_by_repeat": {str(k): v.to_dict() for k, v in counts[spec.name].items()},
            "cp": {"scored_runs": len(cp_runs),
                   "unsupported_runs": sum(r.status.get("cp", "").startswith("unsupported")
                                           for r in mine),
                   "rate": _summary(_values(mine, _cp_pair))},
            "diarization": {
                "scored_runs": len(diar_runs),
                "unsupported_runs": sum(r.status.get("diarization", "").startswith(
                    "unsupported") for r in mine),
                "der": _summary(_values(mine, _der_pair(lambda d: d.overlap_included))),
                "der_overlap_excluded": _summary(_values(mine, _der_pair(
                    lambda d: d.overlap_excluded))),
                "der_overlap_only": _summary(_values(mine, _der_pair(lambda d: d.overlap_only))),
                "pooled": None if diar_total is None else score_dict(diar_total,
                                                                     exclude_overlap=False),
            },
            "punctuation": _dict(_pool(r.punctuation for r in mine)),
            "numbers": _dict(_pool(r.numbers for r in mine)),
            "terms": _dict(_pool(r.terms for r in mine)),
            "hallucination": _dict(halluc),
            "timestamps": _timestamps(mine),
        }
        moss_samples = [r.moss for r in mine if r.moss is not None]
        moss[spec.name] = (corpus_table(moss_samples).to_dict() if moss_samples else None)
        parity_total: DiarizationScore | None = _pool(r.lattifai for r in mine)
        lattifai[spec.name] = (None if parity_total is None
                               else score_dict(parity_total, exclude_overlap=False))
        pairs: SegmentPairTiming | None = _pool(
            r.timestamps.segment_pairs for r in mine if r.timestamps is not None)
        diagnostic[spec.name] = None if pairs is None else pairs.to_dict()
    overall = run_maturity(evidence, manifest.required_repeats)
    cross = _cross(manifest, text_values, overall)
    return Tables(scenarios, cross, overall, moss, lattifai, diagnostic, counts)


def _cross(manifest: Manifest, values: dict[str, list[SampleValue]],
           maturity: Maturity) -> dict[str, Any]:
    by_rate: dict[str, Any] = {}
    for unit, rate in RATE_NAMES.items():
        names = [s.name for s in manifest.scenarios if s.unit == unit and values[s.name]]
        if names:
            result: CrossScenario = cross_scenario({n: values[n] for n in names})
            by_rate[rate] = result.to_dict()
    return {"maturity": maturity.to_dict(), "by_rate": by_rate}


def _dict(value: Any) -> dict[str, Any] | None:
    return None if value is None else dict(value.to_dict())


