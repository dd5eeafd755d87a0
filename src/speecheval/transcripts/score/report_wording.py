"""The judgements and untested hypotheses of a score report (spec: 报告措辞).

The tables are the measured facts. Beside them a report states

- **judgements**: what the evidence allows per scenario and across scenarios (from the
  maturity levels), then the manifest's own ``judgements``, each followed by its evidence:
  scenario coverage, samples rated, failed runs and the rate with its 95% interval, so no
  ranking stands without them. A judgement whose words need a level the evidence does not
  reach (:mod:`speecheval.transcripts.claims`) is refused: an input error naming the
  manifest line, nothing written;
- **untested hypotheses**: the manifest's ``hypotheses`` as written, and what the run
  cannot show (scenarios below ``scenario_qualified``, scenarios it does not hold).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...core.errors import InputError
from ...report.numbers import percent
from ..claims import refusal
from ..maturity import Level
from .tables import ScenarioTable, Tables

FACTS, JUDGEMENTS, HYPOTHESES = "Measured facts", "Judgements", "Untested hypotheses"
"""The three parts of a report, in this order."""
ALLOWS: dict[str, str] = {
    "pipeline_smoke": "the pipeline runs on it; no ranking or trend is drawn",
    "exploratory": "per-sample facts only; no trend or ranking is drawn",
    "scenario_qualified": "comparisons inside this scenario are supported; not beyond it",
}


@dataclass(frozen=True)
class Claim:
    """A judgement of the manifest: its text, its scenario (``None``: across scenarios)
    and where it was written (for the error message)."""

    text: str
    scenario: str | None
    where: str


@dataclass(frozen=True)
class Wording:
    judgements: tuple[str, ...]
    hypotheses: tuple[str, ...]

    def report_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"judgements": list(self.judgements), "hypotheses": list(self.hypotheses)}


def report_wording(tables: Tables, claims: Sequence[Claim], hypotheses: Sequence[str],
                   source: Any) -> Wording:
    """The judgements and hypotheses of a report; a claim the evidence cannot carry is an
    :class:`InputError` on ``source`` (the manifest path) naming ``claim.where``."""
    run: Level = tables.run_maturity.level
    judged = [_scenario_judgement(name, table) for name, table in tables.scenarios.items()]
    judged.append(_run_judgement(tables))
    for claim in claims:
        table = None if claim.scenario is None else tables.scenarios[claim.scenario]
        level = None if table is None else table.maturity.level
        why = refusal(claim.text, claim.scenario, level, run)
        if why is not None:
            raise InputError(f"{claim.where}: refused as a judgement: {why}; write it under "
                             "hypotheses or gather the evidence", path=source)
        evidence = (_cross_evidence(tables) if table is None
                    else _scenario_evidence(claim.scenario or "", table))
        judged.append(f"{claim.text} [{evidence}]")
    untested = list(hypotheses)
    untested += [f"{name}: whether its results hold beyond its {table.samples} samples is "
                 f"untested ({table.maturity.level})"
                 for name, table in tables.scenarios.items()
                 if table.maturity.level not in ("scenario_qualified", "decision_grade")]
    untested.append("nothing here extends to scenarios this manifest does not hold (it holds "
                    f"{', '.join(tables.scenarios)})")
    return Wording(tuple(judged), tuple(untested))


def _scenario_judgement(name: str, table: ScenarioTable) -> str:
    level = table.maturity.level
    reasons = "; ".join(table.maturity.reasons)
    return (f"{name} ({level}): {ALLOWS[level]}" + (f" ({reasons})" if reasons else "")
            + f" [{_scenario_evidence(name, table)}]")


def _run_judgement(tables: Tables) -> str:
    run = tables.run_maturity
    if run.level == "decision_grade":
        return "across scenarios (decision_grade): conclusions across the core scenarios " \
               f"are supported [{_cross_evidence(tables)}]"
    return (f"across scenarios ({run.level}): no conclusion across scenarios is drawn ("
            f"{'; '.join(run.reasons)}) [{_cross_evidence(tables)}]")


def _scenario_evidence(name: str, table: ScenarioTable) -> str:
    """Coverage, valid samples, failures and uncertainty of one scenario's rate."""
    text = table.text
    rated = 0 if text is None else text.samples
    ci = None if text is None else text.value.macro_ci95
    macro = None if text is None else text.value.macro
    interval = "n/a" if ci is None else f"[{percent(ci[0])}, {percent(ci[1])}]"
    return (f"scenario {name}: {rated} of {table.samples} samples rated, "
            f"{table.failed_runs} of {table.runs} runs failed, "
            f"{table.rate_name.upper()} macro {percent(macro)} "
            f"(95% CI {interval})")


def _cross_evidence(tables: Tables) -> str:
    """Which scenarios each cross-scenario macro covers, with failures and its level."""
    failed = sum(t.failed_runs for t in tables.scenarios.values())
    runs = sum(t.runs for t in tables.scenarios.values())
    rates = "; ".join(
        f"{rate.upper()} scenario macro {percent(v.value.scenario_macro)} over "
        f"{len(v.value.scenarios)} of {len(tables.scenarios)} scenarios "
        f"({v.maturity.level})"
        for rate, v in tables.cross_scenario.by_rate.items()) or "no rate"
    each = "; ".join(_scenario_evidence(name, table) for name, table in tables.scenarios.items())
    return f"{rates}; {failed} of {runs} runs failed; {each}"
