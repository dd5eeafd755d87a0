"""Write a run directory: every session's recording plus the three reports.

Layout::

    OUT/report.json  report.md  report.html  report.voicebench.json
    OUT/sessions/001/user.wav  agent.wav  session.wav  events.jsonl
    ...

The directory appears complete or not at all (:func:`speecheval.core.output.new_output_dir`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ...core.canonical_json import dumps
from ...core.output import atomic_write_text, new_output_dir
from ..metrics.evaluate import RunResult
from .recording_io import session_dir, write_recording
from .report_html import render_html
from .report_json import build_report, provenance
from .report_md import render_markdown, summary_rows
from .report_voicebench import REPORT_VOICEBENCH, build_voicebench_report

REPORT_JSON = "report.json"
REPORT_MD = "report.md"
REPORT_HTML = "report.html"
JUDGE_JSON = "judge.json"


def write_run(result: RunResult, out: Path, command: Sequence[str]) -> str:
    """Write everything under the new directory ``out``; return the run's summary as the
    terminal shows it (so that the command hands its result to the reports once).
    ``command`` is the command line without secrets, for the provenance record."""
    record = provenance(result, command)
    with new_output_dir(out) as staging:
        for index, recording in enumerate(result.recordings):
            write_recording(recording, staging / session_dir(index))
            task = result.sessions[index].task
            if task is not None:  # the judge's request and raw answer: its ledger
                atomic_write_text(staging / session_dir(index) / JUDGE_JSON,
                                  dumps(task.ledger.report_dict()))
        atomic_write_text(staging / REPORT_JSON, dumps(build_report(result, record)))
        atomic_write_text(staging / REPORT_MD, render_markdown(result))
        atomic_write_text(staging / REPORT_HTML, render_html(result, record))
        atomic_write_text(staging / REPORT_VOICEBENCH, dumps(build_voicebench_report(result)))
    return terminal_summary(result, out)


def terminal_summary(result: RunResult, out: Path) -> str:
    """What ``session run`` prints: the summary rows, each assertion, the verdict."""
    lines = [f"scenario {result.scenario.name}: agent {result.agent}, {result.clock} clock, "
             f"{len(result.sessions)} session(s)"]
    lines += [f"  {label:<32} {value}" for label, value in summary_rows(result.summary)]
    for assertion in result.assertions:
        verdict = "PASS" if assertion.passed else "FAIL"
        actual = "missing" if assertion.actual is None else f"{assertion.actual:g}"
        lines.append(f"  {verdict} {assertion.key} limit {assertion.limit:g} "
                     f"(actual {actual})")
    verdict = "AGENT FAULT" if result.faulted else "PASS" if result.passed else "FAIL"
    lines.append(f"{verdict}; reports in {out}")
    return "\n".join(lines)
