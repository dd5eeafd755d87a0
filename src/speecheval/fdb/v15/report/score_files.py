"""The files and the console table of ``fdb15 score``: the one writer of its reports.

``timing.json`` holds the definitions, one ``core.provenance`` record and each scenario's
summary; ``timing-samples.jsonl`` one line per trial (:meth:`.scoring.ScoredTrial.report_dict`),
and ``timing-samples.csv`` the same rows for a spreadsheet (:mod:`speecheval.core.csv_rows`).
The JSON files are canonical; all are written into a new directory that appears only when complete.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ....core.canonical_json import dumps, dumps_lines
from ....core.csv_rows import jsonl_to_csv
from ....core.output import atomic_write_text, new_output_dir
from ....core.provenance import Provenance
from ....report.numbers import fixed, percent
from ....report.table import Table, to_text
from ...common.aggregate import LatencyQuantiles
from ..scoring.trials import ScenarioTiming, ScoredTrial

if TYPE_CHECKING:  # the sections' modules are imported only when a judge runs
    from ..scoring.sections import BehaviourSection, ProsodySection

TIMING_KIND = "fdb-v1.5-timing"
DEFINITIONS = {
    "stop_latency": "end of the output speech segment covering the overlap onset minus the "
                    "onset; censored (output ends while speaking) at +inf; trials not "
                    "speaking at the onset have no value",
    "response_latency": "start of the first output speech segment at or after the overlap "
                        "end minus the end; no response at +inf; trials speaking through the "
                        "end or whose output ends by the overlap end have no value",
    "median_interval": "percentile bootstrap over whole samples, 2000 resamples, seed 0, "
                       "rank quantile ceil(qN)",
    "status_interval": "95% Wilson score interval",
    "official": "get_timing.py intervals (Silero segments padded by 30 ms as the script's "
                "are; user gaps <= 0.6 s, model gaps <= 0.5 s merged)",
}


def write_timing(destination: Path, provenance: Provenance,
                 summary: Mapping[str, ScenarioTiming], scored: Sequence[ScoredTrial],
                 extra_files: Mapping[str, str] | None = None) -> None:
    """The timing files and ``extra_files`` (name -> text, the behaviour and prosody
    sections), all in one new directory."""
    document: dict[str, Any] = {
        "kind": TIMING_KIND, "schema_version": 1, "definitions": DEFINITIONS,
        "provenance": provenance.to_dict(),
        "scenarios": {name: result.report_dict() for name, result in summary.items()},
    }
    with new_output_dir(destination) as staging:
        atomic_write_text(staging / "timing.json", dumps(document))
        samples = dumps_lines(trial.report_dict() for trial in scored)
        atomic_write_text(staging / "timing-samples.jsonl", samples)
        atomic_write_text(staging / "timing-samples.csv", jsonl_to_csv(samples))
        for name, text in (extra_files or {}).items():
            atomic_write_text(staging / name, text)


def behaviour_files(section: BehaviourSection) -> dict[str, str]:
    """``behaviour.json``, ``behaviour-samples.jsonl`` (label and reason per trial) and,
    for a judge that keeps one, ``behaviour-ledger.jsonl`` (every request and reply)."""
    files = {
        "behaviour.json": dumps(section.report_dict()),
        "behaviour-samples.jsonl": dumps_lines(
            {"sample_id": sample, "label": verdict.label, "reason": verdict.reason}
            for sample, verdict in section.verdicts.items()),
    }
    if section.ledger is not None:
        files["behaviour-ledger.jsonl"] = dumps_lines(section.ledger)
    return files


def prosody_files(section: ProsodySection) -> dict[str, str]:
    """``prosody.json`` and ``prosody-samples.jsonl`` (one line per measured trial)."""
    return {"prosody.json": dumps(section.report_dict()),
            "prosody-samples.jsonl": dumps_lines(t.report_dict() for t in section.trials)}


def _median(quantiles: LatencyQuantiles) -> str:
    if quantiles.n == 0:
        return "n/a"
    value = fixed(quantiles.median, 3) if quantiles.median is not None else "not reached"
    interval = quantiles.median_interval
    if interval is None:
        return value
    low = fixed(interval.low, 3, missing="inf")
    high = fixed(interval.high, 3, missing="inf")
    return f"{value} [{low}, {high}] (n {quantiles.n})"


def render(summary: Mapping[str, ScenarioTiming]) -> str:
    """The console table: medians in seconds with intervals, then each status's share."""
    rows = []
    for name, result in summary.items():
        stopped = result.stop_statuses["stopped"].share
        through = result.response_statuses["speaking_through_end"].share
        rows.append([name, f"{result.trials}/{result.declared}",
                     _median(result.stop_latency), _median(result.response_latency),
                     percent(stopped.value, 1), percent(through.value, 1)])
    table = Table.of(["scenario", "trials", "stop latency s [95%]",
                      "response latency s [95%]", "stopped", "spoke through end"], rows)
    return to_text(table)
