"""The checks a capture must pass before it can be scored, read from its files alone.

Shared by ``reference-export`` and ``fdb15 export`` (which also play the capture out and
compare the dataset's hashes) and by ``record`` (which, at the end of a run and for
``--retry ineligible``, asks of each session's latest attempt whether export will take
it): input pacing, faults in the window, the output rate and some audio received.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from .eligibility import Verdict, check_pacing, check_rate, check_window
from .playout import Arrival
from .run_layout import STATUS_FILE, TRACE_FILE


@dataclass
class CaptureTrace:
    """What the checks and the playout need of a trace.jsonl, gathered line by line: a
    flooded capture's trace is long, and its audio events are kept only as their
    playout arrivals."""

    header: dict[str, Any]
    appends: list[dict[str, Any]]
    faults: list[dict[str, Any]]
    rates: list[Any]
    arrivals: list[Arrival]


def read_trace(path: Path, sample_id: str) -> CaptureTrace:
    trace = CaptureTrace({}, [], [], [], [])
    try:
        with path.open(encoding="utf-8", newline="") as lines:
            for number, line in enumerate(lines):
                event = json.loads(line)
                kind = event["type"]
                if number == 0 and kind == "header":
                    trace.header = event
                elif kind == "append":
                    trace.appends.append(event)
                elif kind == "fault":
                    trace.faults.append(event)
                if kind == "audio":
                    trace.rates.append(event.get("rate"))
                    trace.arrivals.append(Arrival(float(event["t_s"]), int(event["offset"]),
                                                  int(event["samples"])))
                elif kind in ("clear", "speech_started"):
                    trace.arrivals.append(Arrival(float(event["t_s"]), drop=True))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read the trace: {exc}", path=path,
                         sample_id=sample_id) from exc
    return trace


def check_capture(folder: Path, status: dict[str, Any], duration_s: float, session_id: str,
                  verdict: Verdict) -> CaptureTrace:
    """Pacing, window faults, output rate and received audio of the capture in
    ``folder`` (not skipped), failed into ``verdict``; returns its trace."""
    trace = read_trace(folder / TRACE_FILE, session_id)
    packet_ms = int(trace.header.get("packet_ms", 80))
    input_rate = int(status.get("input_rate") or 0)
    per_packet = input_rate * packet_ms // 1000 if input_rate else 1
    expected = math.ceil(int(status.get("input_samples") or 0) / per_packet)
    check_pacing(trace.appends, expected, verdict)
    check_window(trace.faults, duration_s, verdict)
    check_rate(trace.header.get("output_rate"), trace.rates, verdict)
    if not int(status.get("received_samples") or 0):
        verdict.fail("no_output", "no audio was received")
    return trace


def capture_reasons(folder: Path, duration_s: float, session_id: str) -> list[str]:
    """The reason codes export will give the capture in ``folder`` (its dataset hashes
    aside): [] when it passes; a skipped capture is ``no_output``."""
    status = json.loads((folder / STATUS_FILE).read_text(encoding="utf-8"))
    verdict = Verdict()
    if status["status"] == "skipped":
        return ["no_output"]
    check_capture(folder, status, duration_s, session_id, verdict)
    return verdict.reasons
