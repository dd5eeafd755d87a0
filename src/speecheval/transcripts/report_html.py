"""Self-contained HTML report of a ``transcripts score`` run (no scripts, no external files).

It shows the summary lines, every table of the run (the parity tracks and the segment
timestamp diagnostic in their own tables), and per run an error-annotated alignment view
(reference over hypothesis token, marked S, D or I) and an inline SVG timeline of the
reference and hypothesis speaker turns. Long runs show their first steps and turns only,
and say how many there are in all. Everything is escaped, and numbers are written with
fixed decimals, so the same run gives the same bytes.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from .score.report_tables import TextTable, kaldi_lines, pct, text_tables
from .score.sample import RunScore, Turn
from .score.tables import Tables

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.85em}
th,td{border:1px solid #bbb;padding:.2em .45em;text-align:right}
th{background:#eee}td:first-child,th:first-child{text-align:left}
.note{color:#555;font-size:.85em}pre{background:#f6f6f6;padding:.6em}
.al{line-height:1.1;font-size:.85em}
.st{display:inline-flex;flex-direction:column;margin:1px;padding:1px 3px;border-radius:3px}
.st b{font-size:.7em;color:#555}.S{background:#fde2a8}.D{background:#f8c4c4}
.I{background:#c9e7f8}.e{background:#f4f4f4}
.legend span{margin-right:1em}details{margin:.4em 0}
"""
_LANE_H = 16
_LEFT = 130
_WIDTH = 1000
_PLOT = _WIDTH - _LEFT - 10
_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
            "#ff9da7", "#9c755f", "#bab0ac")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _table(table: TextTable) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in table.header)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>"
                   for row in table.rows)
    rows = f"<table><tr>{head}</tr>{body}</table>" if table.rows else "<p>(no rows)</p>"
    return f"<h2>{_e(table.title)}</h2><p class='note'>{_e(table.note)}</p>{rows}"


def alignment_html(run: RunScore) -> str:
    """The edit path preview as marked token pairs."""
    cells = []
    for op, ref, hyp in run.preview.steps:
        cls = "e" if op == "=" else op
        mark = "" if op == "=" else op
        cells.append(f"<span class='st {cls}'><b>{mark}&nbsp;</b><span>{_e(ref) or '&nbsp;'}"
                     f"</span><span>{_e(hyp) or '&nbsp;'}</span></span>")
    shown = len(run.preview.steps)
    more = ("" if shown == run.preview.total_steps else
            f"<p class='note'>first {shown} of {run.preview.total_steps} alignment steps</p>")
    return f"<div class='al'>{''.join(cells)}</div>{more}"


def _lanes(turns: Sequence[Turn], side: str) -> list[tuple[str, list[Turn]]]:
    by_speaker: dict[str, list[Turn]] = {}
    for turn in turns:
        by_speaker.setdefault(turn.speaker, []).append(turn)
    return [(f"{side} {name}", by_speaker[name]) for name in sorted(by_speaker)]


def timeline_svg(run: RunScore) -> str:
    """Reference and hypothesis speaker lanes over ``[0, audio duration]``."""
    duration = run.sample.duration_s
    lanes = _lanes(run.preview.reference_turns, "ref") + _lanes(run.preview.hypothesis_turns,
                                                                "hyp")
    height = (len(lanes) + 1) * _LANE_H + 10
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{_WIDTH}' height='{height}' "
             f"role='img' aria-label='speaker timeline'>"]
    for index, (label, turns) in enumerate(lanes):
        y = index * _LANE_H + 4
        colour = _COLOURS[index % len(_COLOURS)]
        parts.append(f"<text x='2' y='{y + 11}' font-size='11'>{_e(label)}</text>")
        for turn in turns:
            x0 = _LEFT + _PLOT * min(turn.start, duration) / duration
            x1 = _LEFT + _PLOT * min(turn.end, duration) / duration
            parts.append(f"<rect x='{x0:.2f}' y='{y}' width='{max(x1 - x0, 0.5):.2f}' "
                         f"height='{_LANE_H - 4}' fill='{colour}'><title>{_e(label)} "
                         f"{turn.start:.3f}-{turn.end:.3f} s</title></rect>")
    axis_y = len(lanes) * _LANE_H + 14
    for k in range(11):
        x = _LEFT + _PLOT * k / 10
        parts.append(f"<text x='{x:.2f}' y='{axis_y}' font-size='9' text-anchor='middle'>"
                     f"{duration * k / 10:.1f}</text>")
    parts.append("</svg>")
    total = run.preview.total_turns
    shown = max(len(run.preview.reference_turns), len(run.preview.hypothesis_turns))
    more = "" if shown >= total else f"<p class='note'>first {shown} turns per side shown</p>"
    return "".join(parts) + more


def _run_section(run: RunScore) -> str:
    rate = "n/a" if run.text is None else pct(run.text.error_rate)
    title = (f"{run.sample.id} (scenario {run.sample.scenario}, repeat {run.repeat}, "
             f"{run.sample.kind}): error rate {rate}")
    if run.failure is not None:
        title += f"; FAILED: {run.failure}"
    notes = "".join(f"<li>{_e(k)}: {_e(v)}</li>" for k, v in sorted(run.status.items()))
    return (f"<details><summary>{_e(title)}</summary>"
            f"<div class='legend note'><span>S substitution</span><span>D deletion</span>"
            f"<span>I insertion</span><span>upper: reference, lower: hypothesis</span></div>"
            f"{alignment_html(run)}<h4>Speaker timeline (seconds)</h4>{timeline_svg(run)}"
            f"<ul class='note'>{notes}</ul></details>")


def render_report(system: str, tables: Tables, runs: Sequence[RunScore]) -> str:
    """The whole report as one HTML document."""
    maturity = tables.run_maturity
    reasons = "".join(f"<li>{_e(r)}</li>" for r in maturity.reasons)
    body = [f"<h1>Transcript scoring: {_e(system)}</h1>",
            f"<p>Run maturity: <strong>{_e(maturity.level)}</strong></p>",
            f"<ul class='note'>{reasons}</ul>" if reasons else "",
            "<pre>" + _e("\n".join(kaldi_lines(tables))) + "</pre>"]
    body.extend(_table(t) for t in text_tables(tables))
    body.append("<h2>Runs</h2>")
    body.extend(_run_section(run) for run in runs)
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>Transcript scoring: {_e(system)}</title><style>{_CSS}</style></head>"
            f"<body>{''.join(body)}</body></html>\n")
