"""The same voicebench scenario, against voicebench's own mock server, run by both tools.

voicebench 0.2.0's ``mock-server`` (a test-only dependency) is started on 127.0.0.1 in
its own process. Its agent counts the user's loud 20 ms frames during its reply and
stops ``interrupt_reaction_ms`` after ``barge_in_min_ms`` of them; a quiet frame resets
the count. So the barge-in stop time depends on the user audio frame by frame: when
``synth: speech`` was espeak-ng speech, its quiet frames reset the count and speecheval
measured 550-570 ms where voicebench measured 390-410 ms. Now both send the same
samples, and the two tools must agree.

Both run on the real clock, so neither is exact: voicebench documents that real-clock
metrics can shift by up to one scenario frame (20 ms here), so two independent runs may
differ by two frames. The tolerance is 40 ms, a quarter of the 160 ms disagreement.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from speecheval.cli import main

from .helpers import write_scenario
from .test_report_voicebench import differences, measurements, voicebench_report

vb_bench = pytest.importorskip("voicebench.bench")
vb_scenario = pytest.importorskip("voicebench.scenario")

FRAME_MS = 20
TOLERANCE_MS = 2 * FRAME_MS
# the barge-in settings of voicebench's mock-conversation example
SERVER_OPTIONS = ("barge_in_min_ms=250", "interrupt_reaction_ms=120", "response_ms=2500")

SCENARIO = """
name: barge-in-over-websocket
frame_ms: 20
tail_ms: 1000
adapter: {type: websocket}
defaults: {response_timeout_ms: 4000, max_stop_ms: 600}
turns:
  - id: question
    audio: {synth: speech, duration_ms: 1500}
    start: {after: session_start, delay_ms: 300}
  - id: barge-in
    audio: {synth: speech, duration_ms: 1400, seed: 2}
    start: {after: agent_speech_start, delay_ms: 900}
    expect: stop
"""


@contextmanager
def voicebench_server() -> Iterator[str]:
    """voicebench's mock server on a free port of 127.0.0.1; yields its URL."""
    args = [sys.executable, "-u", "-m", "voicebench", "mock-server", "--port", "0"]
    for option in SERVER_OPTIONS:
        args += ["-o", option]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"ws://127\.0\.0\.1:\d+", line)
        assert found, f"voicebench mock-server did not start: {line!r}"
        yield found.group(0)
    finally:
        process.terminate()
        process.wait(10)


def stop_ms_by_voicebench(path: Path, url: str) -> tuple[float, float]:
    """voicebench's stop latency, and the worst lateness of its event loop meanwhile
    (a 20 ms timer on absolute deadlines beside it: what a loaded machine added)."""
    scenario = vb_scenario.load_scenario(path)

    async def run() -> tuple[Any, float]:
        loop = asyncio.get_running_loop()
        worst, t0, tick = 0.0, loop.time(), 0

        async def probe() -> None:
            nonlocal worst, tick
            while True:
                tick += 1
                await asyncio.sleep(max(0.0, t0 + tick * 0.02 - loop.time()))
                worst = max(worst, (loop.time() - t0 - tick * 0.02) * 1000)

        task = asyncio.create_task(probe())
        try:
            return await vb_bench.run_benchmark(scenario, options={"url": url}), worst
        finally:
            task.cancel()

    result, late_ms = asyncio.run(run())
    (turn,) = [t for t in result.sessions[0].turns if t.id == "barge-in"]
    assert turn.stop_latency_ms is not None, turn.notes
    return float(turn.stop_latency_ms), late_ms


def test_barge_in_stop_agrees_with_voicebench_on_its_mock_server(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, SCENARIO)
    out = tmp_path / "run"
    with voicebench_server() as url:
        theirs, their_late = stop_ms_by_voicebench(path, url)
        code = main(["session", "run", str(path), "--url", url, "--out", str(out)])
    report = json.loads((out / "report.json").read_text())
    assert code == 0, report["sessions"][0]["turns"][1]["notes"]
    ours = report["sessions"][0]["turns"][1]["stop_ms"]
    # the server stops 250 + 120 ms after the barge-in's onset plus a frame or two of
    # reaction; the recording backdates the end to the last loud frame
    # Each run's stop is heard late by as much as its own loop was held up (its worst
    # send lateness; ~1 ms on a quiet machine, so the bounds stay as tight there).
    our_late = report["sessions"][0]["send_lateness_ms"]["max"]
    assert 370 <= theirs <= 450 + their_late, (theirs, their_late)
    assert abs(ours - theirs) <= TOLERANCE_MS + max(our_late, their_late), (
        ours, theirs, our_late, their_late)
    # and the voicebench-schema report of our recording is what voicebench's analysis of
    # the same tracks gives
    mine = json.loads((out / "report.voicebench.json").read_text())
    assert mine["adapter"] == {"type": "websocket"} and mine["clock"] == "real"
    assert differences(measurements(mine),
                       measurements(voicebench_report(out, path, "real"))) == []
