"""The HTML report: one self-contained page with a timeline per session.

Each timeline is inline SVG: the user track above the agent track, each drawn as its
peak envelope, detected speech segments as bars under each lane, and every turn's window
shaded and labelled. Audio players link to the session's WAV files by relative path, so
the page works when the run directory is copied or served as a whole. No scripts, no
external assets.
"""

from __future__ import annotations

from html import escape
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .bench import RunResult
from .recording_io import AGENT_WAV, SESSION_WAV, USER_WAV
from .report_json import session_dir
from .report_md import TURN_HEADER, fmt, summary_rows, turn_cells

WIDTH = 1000
LANE = 70
BAR = 8
_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;
text-align:left;font-size:14px}.pass{color:#166534}.fail{color:#b91c1c;font-weight:bold}
svg{border:1px solid #ddd;background:#fafafa}
"""


def envelope(samples: NDArray[np.int16], columns: int) -> NDArray[np.float64]:
    """Peak absolute level (0..1) of each of ``columns`` equal slices of the track.

    >>> envelope(np.array([0, 16384, -32768, 0], dtype=np.int16), 2).tolist()
    [0.5, 1.0]
    """
    if samples.size == 0:
        return np.zeros(columns)
    edges = np.linspace(0, samples.size, columns + 1).astype(np.int64)
    magnitude = np.abs(samples.astype(np.float64)) / 32768.0
    peaks = np.maximum.reduceat(magnitude, np.minimum(edges[:-1], samples.size - 1))
    peaks[edges[1:] <= edges[:-1]] = 0.0
    return np.asarray(peaks)


def _lane(samples: NDArray[np.int16], top: int, colour: str) -> str:
    """One track's envelope, scaled to its own loudest column so quiet agents stay visible."""
    peaks = envelope(samples, WIDTH)
    peaks = peaks / max(float(peaks.max(initial=0.0)), 1e-9)
    middle = top + LANE / 2
    points = " ".join(f"{x},{middle - p * LANE / 2:.1f}" for x, p in enumerate(peaks))
    points += " " + " ".join(f"{x},{middle + p * LANE / 2:.1f}"
                             for x, p in reversed(list(enumerate(peaks))))
    return f'<polygon points="{points}" fill="{colour}" opacity="0.8"/>'


def _bars(spans: list[list[float]], scale: float, y: float, colour: str) -> str:
    return "".join(f'<rect x="{a * scale:.1f}" y="{y}" width="{max(1.0, (b - a) * scale):.1f}" '
                   f'height="{BAR}" fill="{colour}"><title>{a:.2f}-{b:.2f} s</title></rect>'
                   for a, b in spans)


AXIS = 16
_TICK_STEPS_S = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)


def tick_step(duration_s: float, most: int = 12) -> float:
    """The smallest readable tick spacing that gives at most ``most`` ticks.

    >>> tick_step(9.0), tick_step(45.0), tick_step(600.0)
    (1.0, 5.0, 60.0)
    """
    return next((step for step in _TICK_STEPS_S if duration_s / step <= most),
                _TICK_STEPS_S[-1])


def _axis(duration: float, scale: float, top: int, bottom: int) -> str:
    """Light gridlines with second labels under the lanes."""
    step = tick_step(duration)
    parts = []
    for k in range(int(duration // step) + 1):
        t = k * step
        x = t * scale
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" '
                     f'stroke="#cbd5e1" stroke-width="0.5"/>'
                     f'<text x="{x + 2:.1f}" y="{bottom + 12}" font-size="9" fill="#555">'
                     f'{t:g} s</text>')
    return "".join(parts)


def timeline(session: dict[str, Any], user: NDArray[np.int16],
             agent: NDArray[np.int16]) -> str:
    """The SVG timeline of one session."""
    duration = max(session["duration_s"], 1e-6)
    scale = WIDTH / duration
    height = 2 * LANE + 2 * BAR + 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
             f'height="{height + AXIS}" viewBox="0 0 {WIDTH} {height + AXIS}" role="img">']
    for turn in session["turns"]:
        if turn["start_s"] is None:
            continue
        x = turn["start_s"] * scale
        w = max(1.0, (turn["audio_end_s"] - turn["start_s"]) * scale)
        fill = "#dcfce7" if turn["passed"] else "#fee2e2"
        parts.append(f'<rect x="{x:.1f}" y="0" width="{w:.1f}" height="{height - 14}" '
                     f'fill="{fill}"><title>{escape(turn["id"])}</title></rect>'
                     f'<text x="{x + 2:.1f}" y="{height - 3}" font-size="10">'
                     f'{escape(turn["id"])}</text>')
    parts.append(_lane(user, 0, "#2563eb"))
    parts.append(_bars(session["user_segments"], scale, LANE + 1, "#1d4ed8"))
    agent_top = LANE + BAR + 6
    parts.append(_lane(agent, agent_top, "#ea580c"))
    parts.append(_bars(session["agent_segments"], scale, agent_top + LANE + 1, "#c2410c"))
    parts.append(_axis(duration, scale, 0, height))
    parts.append('<text x="4" y="12" font-size="11">user</text>'
                 f'<text x="4" y="{agent_top + 12}" font-size="11">agent</text></svg>')
    return "".join(parts)


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = ""
    for row in rows:
        cells = ""
        for cell in row:
            css = ' class="pass"' if cell == "pass" else ' class="fail"' if cell == "FAIL" else ""
            cells += f"<td{css}>{escape(cell)}</td>"
        body += f"<tr>{cells}</tr>"
    return f"<table><tr>{head}</tr>{body}</table>"


def render_html(report: dict[str, Any], result: RunResult) -> str:
    """The whole page; ``result`` supplies the tracks for the envelopes."""
    sc = report["scenario"]
    verdict = "PASS" if report["passed"] else "FAIL"
    parts = ["<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
             f"<title>speecheval session: {escape(sc['name'])}</title>",
             f"<style>{_STYLE}</style></head><body>",
             f"<h1>Session report: {escape(sc['name'])}</h1>",
             f"<p>Agent <code>{escape(report['agent']['name'])}</code>, {report['clock']} "
             f"clock. Result: <span class=\"{verdict.lower()}\">{verdict}</span></p>",
             "<h2>Summary</h2>",
             _table(["Metric", "Value"], [list(r) for r in summary_rows(report["summary"])]),
             "<h2>Assertions</h2>"]
    if report["assertions"]:
        parts.append(_table(["Assertion", "Limit", "Actual", "Result"],
                            [[a["key"], fmt(a["limit"]), fmt(a["actual"]),
                              "pass" if a["passed"] else "FAIL"]
                             for a in report["assertions"]]))
    else:
        parts.append("<p>The scenario has no assertions.</p>")
    for index, session in enumerate(report["sessions"]):
        recording = result.recordings[index]
        folder = session_dir(index)
        parts.append(f"<h2>Session {session['index']}</h2>")
        parts.append(timeline(session, recording.user, recording.agent))
        for label, name in (("both (user left, agent right)", SESSION_WAV),
                            ("user", USER_WAV), ("agent", AGENT_WAV)):
            parts.append(f'<p>{label}: <audio controls preload="none" '
                         f'src="{folder}/{name}"></audio></p>')
        parts.append(_table(TURN_HEADER, [turn_cells(t) for t in session["turns"]]))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
