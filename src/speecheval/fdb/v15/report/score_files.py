"""The files and the console table of ``fdb15 score``: the one writer of its reports.

``timing.json`` holds the definitions, one ``core.provenance`` record, each scenario's
summary and the Table 1 pilot of the clean sessions (``table1_pilot``);
``timing-samples.jsonl`` one line per trial (:meth:`.scoring.ScoredTrial.report_dict`),
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
from ..scoring.means import MEAN_INTERVAL
from ..scoring.trials import ScenarioSummary, ScoredTrial

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
    "bridging": "before both latencies, pauses of at most bridge_gap_s (0.5 s, get_timing.py's "
                "model merge gap) in the output speech are bridged; unbridged_* is the same "
                "on the raw segments, bridging_changed whether the two differ",
    "response_latency_from_user_end": "as response_latency, anchored on user_end_s (the end "
                                      "of the input's Silero speech overlapping the window, "
                                      "user pauses <= 0.6 s joined) instead of the window end",
    "official_response_gap": "each official latency_resp_list interval's length (next "
                             "output start minus a user segment's end, the context turn's "
                             "included); per trial their mean and median, per scenario the "
                             "mean and median of the per-trial means",
    "mean": "over the latencies that happened (stopped, responded); sd with ddof 1",
    "mean_interval": MEAN_INTERVAL,
    "table1_pilot": "on the clean session (clean_input.wav heard, clean_output.wav): response "
                    "latency = first output speech at or after the context turn's Silero end "
                    "minus that end; output length = end of the last output speech minus the "
                    "start of the reply; mean and sd per scenario and over all",
}


def write_timing(destination: Path, provenance: Provenance,
                 summary: Mapping[str, ScenarioSummary], scored: Sequence[ScoredTrial],
                 extra_files: Mapping[str, str] | None = None,
                 pilot: Mapping[str, Any] | None = None) -> None:
    """The timing files and ``extra_files`` (name -> text, the behaviour and prosody
    sections), all in one new directory; ``pilot`` is ``timing.json``'s
    ``table1_pilot``."""
    document: dict[str, Any] = {
        "kind": TIMING_KIND, "schema_version": 1, "definitions": DEFINITIONS,
        "provenance": provenance.to_dict(),
        "scenarios": {name: result.report_dict() for name, result in summary.items()},
    }
    if pilot is not None:
        document["table1_pilot"] = dict(pilot)
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


def _mean(summary: Mapping[str, Any]) -> str:
    """A mean with its interval, as ``fdb15 score`` prints it (n/a without values)."""
    if summary["mean"] is None:
        return "n/a"
    interval = summary["mean_interval"]
    return (f"{fixed(summary['mean'], 3)} [{fixed(interval['low'], 3)}, "
            f"{fixed(interval['high'], 3)}]")


def _mean_sd(summary: Mapping[str, Any]) -> str:
    """``mean ± sd (n N)``, Table 1's layout."""
    if summary["mean"] is None:
        return "n/a"
    sd = "" if summary["sd"] is None else f" \u00b1 {fixed(summary['sd'], 2)}"
    return f"{fixed(summary['mean'], 2)}{sd} (n {summary['n']})"


def render(summary: Mapping[str, ScenarioSummary],
           pilot: Mapping[str, Any] | None = None) -> str:
    """The console tables: medians in seconds with intervals and each status's share;
    the means (Table 3's figure), the VAD-anchored and the official response figure
    beside; then the Table 1 pilot, or why there is none."""
    rows, means = [], []
    for name, entry in summary.items():
        result, extras = entry.timing, entry.extras
        stopped = result.stop_statuses["stopped"].share
        through = result.response_statuses["speaking_through_end"].share
        rows.append([name, f"{result.trials}/{result.declared}",
                     _median(result.stop_latency), _median(result.response_latency),
                     percent(stopped.value, 1), percent(through.value, 1),
                     str(extras["bridging"]["trials_changed"])])
        anchored = extras["response_from_user_end"]["latency_mean"]
        official = extras["official_response"]["file_mean"]
        means.append([name, _mean(extras["stop_latency_mean"]),
                      _mean(extras["response_latency_mean"]), _mean(anchored),
                      _mean(official),
                      "n/a" if official["median"] is None else fixed(official["median"], 3)])
    table = Table.of(["scenario", "trials", "stop latency s [95%]",
                      "response latency s [95%]", "stopped", "spoke through end",
                      "bridged"], rows)
    text = to_text(table)
    text += "\nmeans [95% bootstrap] (the paper's Table 3 figure)\n" + to_text(Table.of(
        ["scenario", "stop", "response", "response from user end", "official response",
         "official median"], means))
    if pilot is not None:
        text += "\n" + pilot_text(pilot)
    return text


def pilot_text(pilot: Mapping[str, Any]) -> str:
    """The Table 1 pilot as the paper lays it out: output length and response latency
    after the context turn, mean \u00b1 SD, per scenario and over all."""
    if not pilot["available"]:
        return f"Table 1 pilot: {pilot['note']}\n"
    rows = [[name, f"{row['clean_sessions']}/{row['trials']}", _mean_sd(row["output_length_s"]),
             _mean_sd(row["response_latency_s"])] for name, row in pilot["rows"].items()]
    return ("Table 1 pilot: clean (context-only) sessions\n"
            + to_text(Table.of(["scenario", "clean sessions", "output length s",
                                "response latency s"], rows)))
