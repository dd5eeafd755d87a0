"""Send lateness of ``session load`` at 16 concurrent sessions against the local agent.

Target (issue 14): p99 send lateness under 5 ms with 16 concurrent sessions on a 2-core
machine against the local pcm-websocket agent. The agent runs in its own process (as a
real agent would); the 16 sessions run in this process through ``session load``'s own
code (:func:`speecheval.session.load.levels.run_load`, workers spread over one frame), each
playing a scenario with a 1 s turn every 3 s after the agent's reply so audio flows both
ways. Lateness is measured per frame by the runner. The same run then measures bare
timers on the same schedules (the machine's floor right now) and prints the ratio, so a
figure taken while other jobs load the machine can be read against it, and the CPU time
this process spent on the sessions per second of session (what the code costs, which the
load of other jobs barely moves).

    .venv/bin/python benchmarks/session_load_speed.py [--sessions 16] [--turns 6]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from realtime_lateness import start_agent, timer_floor

from speecheval.core.stats import linear_percentile
from speecheval.session.load.levels import run_load
from speecheval.session.scenario.load import load_scenario

TARGET_P99_MS = 5.0
FRAME_MS = 20


def scenario_text(turns: int) -> str:
    """A first turn at 0.2 s, then one 300 ms after each agent reply ends."""
    lines = ["name: load-speed", "tail_ms: 1000", "turns:"]
    for index in range(turns):
        start = ("{after: session_start, delay_ms: 200}" if index == 0
                 else "{after: agent_speech_end, delay_ms: 300}")
        lines += [f"  - id: t{index}",
                  f"    audio: {{synth: speech, duration_ms: 1000, seed: {index}}}",
                  f"    start: {start}"]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--agent-nice", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "load.yaml"
        path.write_text(scenario_text(args.turns), encoding="utf-8")
        scenario = load_scenario(path)
        process, url = start_agent(args.agent_nice)
        try:
            cpu = time.process_time()
            (level,) = run_load(scenario, "pcm-websocket", {"url": url}, [args.sessions], 0.0)
            cpu = time.process_time() - cpu
        finally:
            process.terminate()
            process.wait(timeout=10)
    row = level.report_dict()
    lateness = np.asarray([v for r in level.result.recordings for v in r.send_lateness_ms])
    seconds = lateness.size * FRAME_MS / 1000 / args.sessions
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} cores (under load when above the core count)")
    print(f"{row['sessions']} sessions, {row['faulted_sessions']['count']} faulted, "
          f"{lateness.size} frames ({seconds:.1f} s a session), wall {row['wall_s']} s")
    print(f"response latency ms: {row['response_latency_ms']}")
    print(f"CPU of this process for the level (sessions and their evaluation): {cpu:.2f} s, "
          f"{1000 * cpu / (seconds * args.sessions):.2f} ms per second of session")
    p50, p99 = linear_percentile(lateness, 50), linear_percentile(lateness, 99)
    print(f"send lateness ms: p50 {p50:.3f}  p99 {p99:.3f}  max {lateness.max():.3f}")
    floor = asyncio.run(timer_floor(args.sessions, 5, FRAME_MS))
    floor_p99 = linear_percentile(floor, 99)
    print(f"timer floor (bare timers, same schedules, 5 s, same run): p50 "
          f"{linear_percentile(floor, 50):.3f}  p99 {floor_p99:.3f}  max {floor.max():.3f}")
    if floor_p99:
        print(f"ratio p99 sessions / p99 timer floor: {p99 / floor_p99:.2f}")
    verdict = "PASS" if p99 is not None and p99 < TARGET_P99_MS and not row[
        "fault_reasons"] else "FAIL"
    print(f"{verdict}: p99 {p99:.3f} ms against {TARGET_P99_MS} ms, faults "
          f"{row['fault_reasons'] or 'none'}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
