"""The HTML report: one self-contained page with a timeline per session.

Each timeline is inline SVG, as wide as the page: the user track above the agent track,
each drawn as its peak envelope, detected speech segments as bars under each lane, every
turn's window shaded (green passed, red failed) and labelled, and what the metrics
measured marked on it: response latency (user offset to agent onset) and barge-in stop
time (user onset to agent stop) as labelled spans, each clear (or server
``speech_started``) as a dashed line on the agent lane, and the agent's fault as a red
line with its reason. The fault is also stated in words under the session's heading,
wherever in the session it happened.

The recording plays in the page: each session's stereo ``session.wav`` (user left,
agent right) is embedded as a ``data:`` URI, so the page works alone, sent by mail or
opened from a CI artifact. Past :data:`EMBED_LIMIT_BYTES` of audio per page the rest is
linked by its path relative to the page instead, and the page says so. No scripts, no
external assets.
"""

from __future__ import annotations

import base64
import json
from html import escape
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core.audio import encode_wav
from . import events as ev
from .bench import RunResult
from .recording import SessionRecording
from .recording_io import AGENT_WAV, EVENTS_JSONL, SESSION_WAV, USER_WAV, stereo_tracks
from .report_json import session_dir
from .report_md import TURN_HEADER, fmt, summary_rows, turn_cells, verdict_text

# Audio embedded per page at most (WAV bytes; base64 adds a third): about 10 minutes of
# 16 kHz stereo. Later sessions are linked by relative path.
EMBED_LIMIT_BYTES = 40 * 1024 * 1024

# The SVG's own coordinates; CSS scales it to the page width.
WIDTH = 1200
LEFT = 46  # lane names
RIGHT = 28  # room for the last axis label
PLOT = WIDTH - LEFT - RIGHT
TOP = 16  # fault label
LANE = 70
BAR = 8
GAP = 6
MEASURE_ROW = 15  # one row of latency or stop spans
AXIS = 18
COLOURS = {"user": "#2563eb", "user_bar": "#1d4ed8", "agent": "#ea580c",
           "agent_bar": "#c2410c", "pass": "#dcfce7", "fail": "#fee2e2",
           "latency": "#15803d", "talk_over": "#b91c1c", "stop": "#7c3aed",
           "clear": "#7c3aed", "fault": "#dc2626", "grid": "#cbd5e1"}
_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;
text-align:left;font-size:14px}.pass{color:#166534}.fail{color:#b91c1c;font-weight:bold}
svg.timeline{display:block;width:100%;height:auto;border:1px solid #ddd;background:#fafafa}
p.fault{border-left:4px solid #dc2626;background:#fef2f2;padding:6px 10px}
.legend{font-size:13px;color:#555}audio{display:block;width:100%;max-width:40em}
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


_TICK_STEPS_S = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)


def tick_step(duration_s: float, most: int = 12) -> float:
    """The smallest readable tick spacing that gives at most ``most`` ticks.

    >>> tick_step(9.0), tick_step(45.0), tick_step(600.0)
    (1.0, 5.0, 60.0)
    """
    return next((step for step in _TICK_STEPS_S if duration_s / step <= most),
                _TICK_STEPS_S[-1])


class _Canvas:
    """Seconds to SVG x; the parts of one timeline."""

    def __init__(self, duration_s: float) -> None:
        self.duration = max(duration_s, 1e-6)
        self.scale = PLOT / self.duration
        self.parts: list[str] = []

    def x(self, t_s: float) -> float:
        return LEFT + min(max(t_s, 0.0), self.duration) * self.scale

    def add(self, svg: str) -> None:
        self.parts.append(svg)


def _lane(canvas: _Canvas, samples: NDArray[np.int16], top: float, colour: str) -> None:
    """One track's envelope, scaled to its own loudest column so quiet agents stay visible."""
    peaks = envelope(samples, PLOT)
    peaks = peaks / max(float(peaks.max(initial=0.0)), 1e-9)
    middle = top + LANE / 2
    upper = [f"{LEFT + x},{middle - p * LANE / 2:.1f}" for x, p in enumerate(peaks)]
    lower = [f"{LEFT + x},{middle + p * LANE / 2:.1f}" for x, p in enumerate(peaks)]
    canvas.add(f'<polygon points="{" ".join(upper + lower[::-1])}" fill="{colour}" '
               'opacity="0.8"/>')


def _bars(canvas: _Canvas, spans: list[list[float]], y: float, colour: str) -> None:
    for a, b in spans:
        canvas.add(f'<rect x="{canvas.x(a):.1f}" y="{y}" '
                   f'width="{max(1.0, (b - a) * canvas.scale):.1f}" height="{BAR}" '
                   f'fill="{colour}"><title>{a:.2f}-{b:.2f} s</title></rect>')


def _span(canvas: _Canvas, start_s: float, end_s: float, y: float, colour: str,
          label: str) -> None:
    """A measured interval: a line with end ticks and its value written above it."""
    x1, x2 = sorted((canvas.x(start_s), canvas.x(end_s)))
    middle = (x1 + x2) / 2
    canvas.add(f'<g stroke="{colour}" stroke-width="1.5"><title>{escape(label)}</title>'
               f'<line x1="{x1:.1f}" y1="{y}" x2="{x2:.1f}" y2="{y}"/>'
               f'<line x1="{x1:.1f}" y1="{y - 4}" x2="{x1:.1f}" y2="{y + 4}"/>'
               f'<line x1="{x2:.1f}" y1="{y - 4}" x2="{x2:.1f}" y2="{y + 4}"/></g>'
               f'<text x="{middle:.1f}" y="{y - 3}" font-size="10" text-anchor="middle" '
               f'fill="{colour}">{escape(label)}</text>')


def _measures(canvas: _Canvas, turns: list[dict[str, Any]], top: float) -> None:
    """Response latency (first row) and barge-in stop time (second row) of every turn."""
    for turn in turns:
        offset, onset = turn["user_offset_s"], turn["user_onset_s"]
        latency = turn["response_latency_ms"]
        if offset is not None and latency is not None:
            colour = COLOURS["talk_over"] if turn["talk_over"] else COLOURS["latency"]
            _span(canvas, offset, offset + latency / 1000.0, top + MEASURE_ROW - 3, colour,
                  f"{latency:g} ms")
        if onset is not None and turn["stop_ms"] is not None:
            _span(canvas, onset, onset + turn["stop_ms"] / 1000.0, top + 2 * MEASURE_ROW - 3,
                  COLOURS["stop"], f"stop {turn['stop_ms']:g} ms")


def _axis(canvas: _Canvas, top: float, bottom: float) -> None:
    """Light gridlines with second labels under the lanes, centred on their ticks."""
    step = tick_step(canvas.duration)
    for k in range(int(canvas.duration // step + 1e-9) + 1):
        x = canvas.x(k * step)
        canvas.add(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" '
                   f'stroke="{COLOURS["grid"]}" stroke-width="0.5"/>'
                   f'<text x="{x:.1f}" y="{bottom + 12}" font-size="10" fill="#555" '
                   f'text-anchor="middle">{k * step:g} s</text>')


def _fault(canvas: _Canvas, fault: str, fault_s: float | None, bottom: float) -> None:
    """A red line where the fault ended the session; at the right edge, labelled "after
    the end", when it was found only after the recording (a stall at close)."""
    after = fault_s is None or fault_s > canvas.duration + 0.001
    x = canvas.x(canvas.duration if after else fault_s or 0.0)
    label = "fault after the end" if after else "fault"
    canvas.add(f'<g><title>agent fault: {escape(fault)}</title>'
               f'<line x1="{x:.1f}" y1="{TOP - 2}" x2="{x:.1f}" y2="{bottom}" '
               f'stroke="{COLOURS["fault"]}" stroke-width="2"/>'
               f'<text x="{x:.1f}" y="{TOP - 5}" font-size="11" font-weight="bold" '
               f'text-anchor="end" fill="{COLOURS["fault"]}">{label}</text></g>')


def timeline(session: dict[str, Any], recording: SessionRecording) -> str:
    """The SVG timeline of one session (``session``: its entry in report.json)."""
    canvas = _Canvas(session["duration_s"])
    log = ev.parse_log(recording.events)
    agent_top = TOP + LANE + BAR + GAP
    measures_top = agent_top + LANE + BAR + 4
    labels_y = measures_top + 2 * MEASURE_ROW + 14
    bottom = labels_y + 4
    for turn in session["turns"]:
        if turn["start_s"] is None:
            continue
        x = canvas.x(turn["start_s"])
        w = max(1.0, canvas.x(turn["audio_end_s"]) - x)
        fill = COLOURS["pass" if turn["passed"] else "fail"]
        canvas.add(f'<rect x="{x:.1f}" y="{TOP}" width="{w:.1f}" height="{bottom - TOP}" '
                   f'fill="{fill}"><title>{escape(turn["id"])}</title></rect>'
                   f'<text x="{x + 2:.1f}" y="{labels_y}" font-size="10">'
                   f'{escape(turn["id"])}</text>')
    _axis(canvas, TOP, bottom)
    _lane(canvas, recording.user, TOP, COLOURS["user"])
    _bars(canvas, session["user_segments"], TOP + LANE + 1, COLOURS["user_bar"])
    _lane(canvas, recording.agent, agent_top, COLOURS["agent"])
    _bars(canvas, session["agent_segments"], agent_top + LANE + 1, COLOURS["agent_bar"])
    for t_s in log.clears_s:
        x = canvas.x(t_s)
        canvas.add(f'<line x1="{x:.1f}" y1="{agent_top}" x2="{x:.1f}" '
                   f'y2="{agent_top + LANE + BAR}" stroke="{COLOURS["clear"]}" '
                   f'stroke-width="1.5" stroke-dasharray="4 3"><title>clear at {t_s:.3f} s'
                   '</title></line>')
    _measures(canvas, session["turns"], measures_top)
    if session["fault"]:
        _fault(canvas, session["fault"], log.fault_s, bottom)
    canvas.add(f'<text x="4" y="{TOP + 12}" font-size="11">user</text>'
               f'<text x="4" y="{agent_top + 12}" font-size="11">agent</text>')
    height = bottom + AXIS
    return (f'<svg class="timeline" xmlns="http://www.w3.org/2000/svg" '
            f'viewBox="0 0 {WIDTH} {height}" role="img" '
            f'aria-label="timeline of session {session["index"]}">'
            + "".join(canvas.parts) + "</svg>")


LEGEND = ("<p class=\"legend\">Blue: user, orange: agent (envelope, detected speech as "
          "bars). Shaded: each turn's audio, green if the turn passed, red if not. Green "
          "spans: response latency (red when the agent talked over the user); purple "
          "spans: barge-in stop time; dashed purple lines: the agent's clears; red line: "
          "the agent's fault. Hover a mark for its value.</p>")


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


def _audio(recording: SessionRecording, folder: str, budget: list[int]) -> str:
    """The session's stereo recording, embedded while ``budget`` (bytes left) allows."""
    wav = encode_wav(stereo_tracks(recording), recording.sample_rate)
    files = (f"Files next to this page: <code>{folder}/{SESSION_WAV}</code> (stereo), "
             f"<code>{folder}/{USER_WAV}</code>, <code>{folder}/{AGENT_WAV}</code>, "
             f"<code>{folder}/{EVENTS_JSONL}</code>.")
    if len(wav) <= budget[0]:
        budget[0] -= len(wav)
        source = "data:audio/wav;base64," + base64.b64encode(wav).decode("ascii")
        note = ""
    else:
        source = f"{folder}/{SESSION_WAV}"
        note = (f" The audio of this session is not embedded: the page would exceed "
                f"{EMBED_LIMIT_BYTES // (1024 * 1024)} MB. The player plays "
                f"<code>{folder}/{SESSION_WAV}</code> when the run folder is kept together.")
    return (f'<p>Both sides (user left, agent right): <audio controls src="{source}">'
            f"</audio></p><p class=\"legend\">{files}{note}</p>")


def _session_facts(session: dict[str, Any]) -> str:
    return (f"<p>Duration {session['duration_s']:.2f} s; user speech "
            f"{fmt(session['user_speech_ms'])} ms, agent speech "
            f"{fmt(session['agent_speech_ms'])} ms, overlap {fmt(session['overlap_ms'])} ms, "
            f"talk-over {fmt(session['talk_over_ms'])} ms; truncated: "
            f"{fmt(session['truncated'])}.</p>")


def render_html(report: dict[str, Any], result: RunResult) -> str:
    """The whole page; ``result`` supplies the tracks and event logs."""
    sc = report["scenario"]
    faulted = report["summary"]["faulted_sessions"]
    verdict = verdict_text(report)
    options = json.dumps(report["agent"]["options"], sort_keys=True)
    parts = ["<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
             f"<title>speecheval session: {escape(sc['name'])}</title>",
             f"<style>{_STYLE}</style></head><body>",
             f"<h1>Session report: {escape(sc['name'])}</h1>",
             f"<p>Agent <code>{escape(report['agent']['name'])}</code>, {report['clock']} "
             f"clock. Result: <span class=\"{'pass' if verdict == 'PASS' else 'fail'}\">"
             f"{verdict}</span></p>",
             f"<p class=\"legend\">Agent options (credentials removed): "
             f"<code>{escape(options)}</code></p>"]
    if faulted:
        parts.append(f"<p class=\"fault\">The agent failed in {faulted} of "
                     f"{report['summary']['sessions']} session(s); see each session.</p>")
    parts += ["<h2>Summary</h2>",
              _table(["Metric", "Value"], [list(r) for r in summary_rows(report["summary"])]),
              "<h2>Assertions</h2>"]
    if report["assertions"]:
        parts.append(_table(["Assertion", "Limit", "Actual", "Result"],
                            [[a["key"], fmt(a["limit"]), fmt(a["actual"]),
                              "pass" if a["passed"] else "FAIL"]
                             for a in report["assertions"]]))
    else:
        parts.append("<p>The scenario has no assertions.</p>")
    budget = [EMBED_LIMIT_BYTES]
    for index, session in enumerate(report["sessions"]):
        recording = result.recordings[index]
        parts.append(f"<h2>Session {session['index']}</h2>")
        if session["fault"]:
            parts.append(f"<p class=\"fault\">Agent fault: {escape(session['fault'])}</p>")
        parts.append(_session_facts(session))
        parts.append(timeline(session, recording))
        if index == 0:
            parts.append(LEGEND)
        parts.append(_audio(recording, session_dir(index), budget))
        parts.append(_table(TURN_HEADER, [turn_cells(t) for t in session["turns"]]))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
