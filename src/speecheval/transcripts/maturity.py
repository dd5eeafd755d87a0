"""Result maturity levels (spec: 结果成熟度门槛), computed from the evidence, never declared.

Per scenario:

- ``pipeline_smoke``: one sample. It proves only that the pipeline runs; no ranking.
- ``exploratory``: fewer than 3 samples, or fewer than 2 independent sources and fewer
  than 2 independent speakers, or reference leakage not ruled out: per-sample facts only.
- ``scenario_qualified``: at least 3 samples, at least 2 independent sources or speakers,
  and declared free of reference leakage: comparisons inside the scenario are allowed.

The evidence is counted per measure: only the samples that yield the measure (a speech
sample for WER, a sample with system speakers for DER) and their sources and speakers, so
a silence clip does not make a scenario's WER qualified.

For a whole run:

- ``decision_grade``: every core scenario is qualified, the core scenarios cover the
  phase-one scenario set (:mod:`.scenario_set`: long podcast, business meeting, meeting
  overlap, each named by a core scenario's ``covers``), the manifest asks for at least the
  spec's :data:`SPEC_REPEATS` repeats per system and sample (场景矩阵: 3 recommended;
  decision_grade needs the prescribed repeats done), every sample of every scenario has
  all required repeats (failed runs count as runs and are scored as failures), and the
  report carries confidence intervals and coverage (it always does here).
- otherwise the lowest level of the core scenarios (of all scenarios when none is core).

A cross-scenario value (a macro over some scenarios) gets its own level
(:func:`combined_maturity`): the lowest level among the scenarios it averages, capped by
the run level, and ``decision_grade`` only when every one of them is a qualified core
scenario.

Every level comes with the reasons it is not higher, so a reader sees what is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .scenario_set import PHASE_ONE_SET, missing_from_set

Level = Literal["pipeline_smoke", "exploratory", "scenario_qualified", "decision_grade"]
LEVELS: tuple[Level, ...] = ("pipeline_smoke", "exploratory", "scenario_qualified",
                             "decision_grade")
MIN_SAMPLES = 3
MIN_INDEPENDENT = 2
SPEC_REPEATS = 3


@dataclass(frozen=True)
class ScenarioEvidence:
    """What the maturity of one scenario is decided from."""

    scenario: str
    samples: int
    sources: int
    speakers: int
    reference_leak_free: bool
    core: bool
    missing_runs: int
    covers: str | None = None
    """The phase-one scenario this one stands for (:mod:`.scenario_set`), if any."""

    def __post_init__(self) -> None:
        if min(self.samples, self.sources, self.speakers, self.missing_runs) < 0:
            raise ValueError(f"negative evidence count in {self!r}")
        if self.samples == 0:
            raise ValueError(f"scenario {self.scenario!r} has no samples")


@dataclass(frozen=True)
class Maturity:
    """A level and the reasons it is not higher."""

    level: Level
    reasons: tuple[str, ...]

    def report_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"level": self.level, "reasons": list(self.reasons)}


def scenario_maturity(evidence: ScenarioEvidence) -> Maturity:
    """Level of one scenario.

    >>> scenario_maturity(ScenarioEvidence("x", 1, 1, 1, True, True, 0)).level
    'pipeline_smoke'
    >>> scenario_maturity(ScenarioEvidence("x", 3, 1, 1, True, True, 0)).reasons
    ('fewer than 2 independent sources (1) and fewer than 2 independent speakers (1)',)
    >>> scenario_maturity(ScenarioEvidence("x", 3, 1, 2, True, True, 0)).level
    'scenario_qualified'
    """
    reasons = []
    if evidence.samples < MIN_SAMPLES:
        reasons.append(f"fewer than {MIN_SAMPLES} samples ({evidence.samples})")
    if evidence.sources < MIN_INDEPENDENT and evidence.speakers < MIN_INDEPENDENT:
        reasons.append(f"fewer than {MIN_INDEPENDENT} independent sources ({evidence.sources})"
                       f" and fewer than {MIN_INDEPENDENT} independent speakers "
                       f"({evidence.speakers})")
    if not evidence.reference_leak_free:
        reasons.append("reference leakage not ruled out (reference_leak_free is false)")
    if evidence.samples == 1:
        return Maturity("pipeline_smoke", ("a single sample only shows the pipeline runs",
                                           *reasons))
    return Maturity("exploratory" if reasons else "scenario_qualified", tuple(reasons))


def run_maturity(scenarios: Mapping[str, tuple[ScenarioEvidence, Maturity]],
                 required_repeats: int) -> Maturity:
    """Level of the cross-scenario results of one run.

    >>> cores = [ScenarioEvidence(n, 3, 2, 2, True, True, 0, covers=n)
    ...          for n in ("long_podcast", "business_meeting", "meeting_overlap")]
    >>> s = ScenarioEvidence("b", 2, 2, 2, True, False, 0)
    >>> m = {e.scenario: (e, scenario_maturity(e)) for e in [*cores, s]}
    >>> run_maturity(m, required_repeats=3).level
    'decision_grade'
    >>> run_maturity(m, required_repeats=1).reasons
    ('required_repeats is 1, fewer than the 3 repeats per sample the spec prescribes',)
    >>> del m["business_meeting"]
    >>> gap = run_maturity(m, 3)
    >>> gap.level, gap.reasons[0].split(": ")[1]
    ('scenario_qualified', 'no core scenario covers business_meeting')
    >>> low = run_maturity({"b": m["b"]}, 3)
    >>> low.level, low.reasons[1]
    ('exploratory', 'scenarios not all qualified: b (exploratory)')
    """
    if not scenarios:
        raise ValueError("no scenarios")
    core = {name: item for name, item in scenarios.items() if item[0].core}
    reasons = []
    if not core:
        reasons.append("no core scenario")
    judged = core or scenarios
    weak = sorted(name for name, (_, m) in judged.items() if m.level != "scenario_qualified")
    if weak:
        kind = "core scenarios" if core else "scenarios"
        reasons.append(f"{kind} not all qualified: " + ", ".join(
            f"{name} ({judged[name][1].level})" for name in weak))
    gaps = missing_from_set(ev.covers for ev, _ in core.values())
    if gaps:
        reasons.append(f"phase-one scenario set {PHASE_ONE_SET} incomplete: no core "
                       f"scenario covers {', '.join(gaps)}")
    if required_repeats < SPEC_REPEATS:
        reasons.append(f"required_repeats is {required_repeats}, fewer than the "
                       f"{SPEC_REPEATS} repeats per sample the spec prescribes")
    missing = sum(ev.missing_runs for ev, _ in scenarios.values())
    if missing:
        reasons.append(f"{missing} runs missing for {required_repeats} required repeats")
    if not reasons:
        return Maturity("decision_grade", ())
    lowest = min((m.level for _, m in judged.values()), key=LEVELS.index)
    return Maturity(lowest, tuple(reasons))


def combined_maturity(parts: Mapping[str, tuple[bool, Maturity]], run: Maturity) -> Maturity:
    """Level of a value averaged over the scenarios ``parts`` (name: (core, level)).

    The lowest level among them, capped by the run level; ``decision_grade`` only when
    the run is and every scenario averaged is a qualified core scenario.

    >>> q, e = Maturity("scenario_qualified", ()), Maturity("exploratory", ("few",))
    >>> run = Maturity("decision_grade", ())
    >>> combined_maturity({"a": (True, q)}, run).level
    'decision_grade'
    >>> combined_maturity({"a": (True, q), "n": (False, q)}, run)
    Maturity(level='scenario_qualified', reasons=('n is not a core scenario',))
    >>> combined_maturity({"x": (False, e)}, run).level
    'exploratory'
    """
    if not parts:
        raise ValueError("no scenarios")
    reasons = [f"{name} ({m.level})" for name, (_, m) in sorted(parts.items())
               if m.level != "scenario_qualified"]
    if reasons:
        reasons = ["scenarios not all qualified: " + ", ".join(reasons)]
    reasons += [f"{name} is not a core scenario" for name, (core, _) in sorted(parts.items())
                if not core]
    if run.level != "decision_grade":
        reasons.append(f"run maturity is {run.level}")
    if not reasons:
        return Maturity("decision_grade", ())
    lowest = min([m.level for _, m in parts.values()] + [run.level], key=LEVELS.index)
    return Maturity(lowest, tuple(reasons))
