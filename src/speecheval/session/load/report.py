"""The reports of ``session load``: load.json, load.md and load.html in a new directory.

One row per concurrency level: sessions run, sessions the agent failed (with a 95%
Wilson interval and the reasons), response latency percentiles over every answered
turn, and send lateness percentiles over every user frame. The page adds two plots
against concurrency (latency; lateness) under the table. Recordings are not kept: a
load run is about the rows, and ``session run`` records single sessions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...core.canonical_json import dumps
from ...core.output import atomic_write_text, new_output_dir
from ...report import page as pg
from ...report.lines_svg import Line, render_lines
from ...report.table import Table, to_markdown
from ..report.report_json import provenance
from .levels import LevelResult

SCHEMA = "speecheval.session.load"
SCHEMA_VERSION = 1
LOAD_JSON, LOAD_MD, LOAD_HTML = "load.json", "load.md", "load.html"
HEADER = ("Concurrency", "Sessions", "Faulted", "Latency p50 ms", "p90", "p99",
          "Lateness p50 ms", "p99", "max")


def build_load_report(levels: Sequence[LevelResult], command: Sequence[str]) -> dict[str, Any]:
    """The JSON report; ``command`` is the command line without secrets."""
    first = levels[0].result
    every = replace(first, sessions=[s for level in levels for s in level.result.sessions])
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "provenance": provenance(every, command).to_dict(),
        "scenario": {"name": first.scenario.name, "file": first.scenario.path.name},
        "agent": {"name": first.agent, "options": first.options},
        "levels": [level.report_dict() for level in levels],
    }


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _cells(row: dict[str, Any]) -> list[str]:
    faulted = row["faulted_sessions"]
    latency, lateness = row["response_latency_ms"], row["send_lateness_ms"]
    return [str(row["concurrency"]), str(row["sessions"]),
            f"{faulted['count']}/{faulted['n']}",
            _ms(latency["p50"]), _ms(latency["p90"]), _ms(latency["p99"]),
            _ms(lateness["p50"]), _ms(lateness["p99"]), _ms(lateness["max"])]


def load_table(report: dict[str, Any]) -> Table:
    return Table.of(HEADER, [_cells(row) for row in report["levels"]])


def _faults(report: dict[str, Any]) -> list[str]:
    return [f"concurrency {row['concurrency']}: {count} x {reason}"
            for row in report["levels"] for reason, count in row["fault_reasons"].items()]


def render_markdown(report: dict[str, Any]) -> str:
    lines = [f"# Load: {report['scenario']['name']} against {report['agent']['name']}", "",
             to_markdown(load_table(report)), ""]
    faults = _faults(report)
    if faults:
        lines += ["## Faults", "", *(f"- {fault}" for fault in faults), ""]
    return "\n".join(lines)


def _plot(report: dict[str, Any], key: str, what: str) -> pg.Figure:
    levels = [str(row["concurrency"]) for row in report["levels"]]
    lines = [Line(f"{what} p{p}", tuple(row[key][f"p{p}"] for row in report["levels"]), " ms")
             for p in (50, 99)]
    return pg.Figure(render_lines(levels, lines, x_label="concurrent sessions",
                                  y_label=f"{what} (ms)",
                                  description=f"{what} against concurrent sessions"))


def render_html(report: dict[str, Any]) -> str:
    faults = _faults(report)
    blocks: list[pg.Block] = []
    if faults:
        blocks.append(pg.Paragraph(("The agent failed: " + "; ".join(faults) + ".",), "fault"))
    blocks += [
        pg.Section("Levels", (pg.TableBlock(load_table(report)),
                              pg.Paragraph(("Latency: user offset to agent onset over every "
                                            "answered turn. Lateness: how late each user "
                                            "frame left against its absolute deadline.",),
                                           "note"))),
        pg.Section("Response latency", (_plot(report, "response_latency_ms",
                                               "response latency"),)),
        pg.Section("Send lateness", (_plot(report, "send_lateness_ms", "send lateness"),)),
    ]
    options = json.dumps(report["agent"]["options"], sort_keys=True)
    facts = (pg.Fact("Agent", (pg.Code(report["agent"]["name"]),)),
             pg.Fact("Levels", (", ".join(str(r["concurrency"]) for r in report["levels"]),)),
             pg.Fact("Agent options (credentials removed)", (pg.Code(options),)))
    record = report["provenance"]
    provenance_rows = (("speecheval", record["tool_version"]),
                       ("scenario", f"{report['scenario']['file']} sha256 "
                                    f"{record['inputs']['scenario'][:12]}"))
    return pg.render_page(pg.Page(f"Load report: {report['scenario']['name']}", facts,
                                  provenance_rows, tuple(blocks)))


def write_load(levels: Sequence[LevelResult], out: Path,
               command: Sequence[str]) -> dict[str, Any]:
    """Write the three reports under the new directory ``out``; return the JSON report."""
    report = build_load_report(levels, command)
    with new_output_dir(out) as staging:
        atomic_write_text(staging / LOAD_JSON, dumps(report))
        atomic_write_text(staging / LOAD_MD, render_markdown(report))
        atomic_write_text(staging / LOAD_HTML, render_html(report))
    return report
