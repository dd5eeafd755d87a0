"""Fresh processes timed against their peers in one run: alternating, the outputs kept.

On a machine that other work shares, the seconds of one command drift with the load from
minute to minute; a ratio holds better when the two commands take turns, round after
round (the order rotated each round, so neither always runs first), and each figure is
printed with the load average it was measured under. Each run's standard output is kept so
that a benchmark can check, in the same run, that the two commands answered the same.
Shared by the benchmarks that compare a command with a peer's; not a benchmark itself.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    """One process: wall and CPU (user + system) seconds, the 1-minute load average when
    it started, and what it printed."""

    wall_s: float
    cpu_s: float
    load: float
    stdout: str


def run_process(argv: Sequence[str], env: Mapping[str, str] | None = None) -> Run:
    """Run ``argv`` (it must exit 0) and measure it."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(list(argv), env=None if env is None else dict(env),
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} ... exited {done.returncode}: "
                         f"{done.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, load, done.stdout)


Command = tuple[Sequence[str], Mapping[str, str] | None]


def alternate(commands: Mapping[str, Command], repeats: int) -> dict[str, list[Run]]:
    """``repeats`` rounds of every command, the order rotated by one each round."""
    names = list(commands)
    runs: dict[str, list[Run]] = {name: [] for name in names}
    for round_number in range(repeats):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            argv, env = commands[name]
            runs[name].append(run_process(argv, env))
    return runs


def median_wall(runs: Sequence[Run]) -> float:
    return statistics.median(run.wall_s for run in runs)


def median_cpu(runs: Sequence[Run]) -> float:
    return statistics.median(run.cpu_s for run in runs)


def row(name: str, runs: Sequence[Run], peer: Sequence[Run] | None = None) -> str:
    """``name``: median and min wall, median and min CPU, the load range over its runs,
    and with ``peer`` the ratios of the medians (this / peer)."""
    loads = [run.load for run in runs]
    text = (f"{name:<44} wall {median_wall(runs):6.3f} (min {min(r.wall_s for r in runs):6.3f})"
            f"  cpu {median_cpu(runs):6.3f} (min {min(r.cpu_s for r in runs):6.3f})"
            f"  load {min(loads):4.1f}-{max(loads):4.1f}")
    if peer is not None:
        text += (f"  {median_wall(runs) / median_wall(peer):5.2f}x wall "
                 f"{median_cpu(runs) / median_cpu(peer):5.2f}x cpu")
    return text
