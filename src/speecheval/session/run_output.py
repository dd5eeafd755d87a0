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
from typing import Any

from ..core.canonical_json import dumps
from ..core.output import atomic_write_text, new_output_dir
from .bench import RunResult
from .recording_io import write_recording
from .report_html import render_html
from .report_json import build_report, session_dir
from .report_md import render_markdown
from .report_voicebench import REPORT_VOICEBENCH, build_voicebench_report

REPORT_JSON = "report.json"
REPORT_MD = "report.md"
REPORT_HTML = "report.html"
JUDGE_JSON = "judge.json"


def write_run(result: RunResult, out: Path, command: Sequence[str]) -> dict[str, Any]:
    """Write everything under the new directory ``out``; return the JSON report."""
    report = build_report(result, command)
    with new_output_dir(out) as staging:
        for index, recording in enumerate(result.recordings):
            write_recording(recording, staging / session_dir(index))
            task = result.sessions[index].task
            if task is not None:  # the judge's request and raw answer: its ledger
                atomic_write_text(staging / session_dir(index) / JUDGE_JSON,
                                  dumps(task["ledger"]))
        atomic_write_text(staging / REPORT_JSON, dumps(report))
        atomic_write_text(staging / REPORT_MD, render_markdown(report))
        atomic_write_text(staging / REPORT_HTML, render_html(report, result))
        atomic_write_text(staging / REPORT_VOICEBENCH, dumps(build_voicebench_report(result)))
    return report
