"""Timing a command as a user runs it: a fresh process, this checkout's code.

Shared by the benchmarks that compare speecheval's commands with their peers' commands
(issue 15: startup decides what a user feels). Not a benchmark itself.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def process_times(argv: list[str], repeats: int = 3) -> list[float]:
    """Wall seconds of ``repeats`` fresh runs of ``argv`` (each must exit 0), importing
    speecheval from this checkout."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return times
