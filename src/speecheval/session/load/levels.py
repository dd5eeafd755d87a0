"""``session load``: the scenario at rising concurrency over real sockets, one level at a time.

At level K, K workers share one event loop; each runs sessions of the scenario back to
back (a fresh connection and script per session) until ``duration_s`` has passed since
the level began, at least one session each. The workers start spread over one frame
(worker k waits ``k * frame_ms / K``), as independent callers would: K sessions whose
every frame deadline coincides measure a burst, not a load. Each level is evaluated as
``session run`` evaluates its sessions (:func:`speecheval.session.metrics.evaluate.evaluate`), less
the task judge and the reply checks (see :func:`_without_checks`), and reduced to what
changes with load: response latency, faults and send lateness (how late
each user frame left against its absolute deadline, the runner's own measure of an
overloaded machine).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...agents import registry
from ...core.errors import InputError
from ...core.pcm import to_int16
from ...core.share import Share
from ...core.stats import linear_percentile
from ..metrics.evaluate import RunResult, evaluate
from ..record.recording import SessionRecording
from ..run.real_clock import frame_samples, run_scenario_session
from ..run.synth import render_turns
from ..run.turn_schedule import ScriptFeed
from ..scenario.model import Scenario

PERCENTS = (50, 90, 99)


def parse_levels(text: str) -> tuple[int, ...]:
    """``1,2,4`` as concurrency levels: positive whole numbers, each once, rising.

    >>> parse_levels("1, 2,4")
    (1, 2, 4)
    """
    try:
        levels = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise InputError(f"--concurrency: expected whole numbers separated by commas, "
                         f"got {text!r}") from None
    if any(level < 1 for level in levels):
        raise InputError(f"--concurrency: every level must be at least 1, got {text!r}")
    if any(b <= a for a, b in zip(levels, levels[1:], strict=False)):
        raise InputError(f"--concurrency: levels must rise, each once, got {text!r}")
    return levels


@dataclass(frozen=True)
class LevelResult:
    """One concurrency level: its evaluated sessions and how long the level took."""

    concurrency: int
    result: RunResult
    wall_s: float

    def report_dict(self) -> dict[str, Any]:
        """The level's row of the load report (JSON-ready)."""
        recordings = self.result.recordings
        faults = Counter(r.fault for r in recordings if r.fault is not None)
        latency = [turn.response_latency_ms for session in self.result.sessions
                   for turn in session.turns if turn.response_latency_ms is not None]
        lateness = np.asarray([v for r in recordings for v in r.send_lateness_ms],
                              dtype=np.float64)
        return {
            "concurrency": self.concurrency,
            "sessions": len(recordings),
            "wall_s": round(self.wall_s, 3),
            "faulted_sessions": Share.wilson(sum(faults.values()), len(recordings)).to_dict(),
            "fault_reasons": dict(sorted(faults.items())),
            "response_latency_ms": _percentiles(np.asarray(latency, dtype=np.float64)),
            "send_lateness_ms": _percentiles(lateness),
        }


def _percentiles(values: NDArray[np.float64]) -> dict[str, float | int | None]:
    """count, p50, p90, p99 (linear interpolation) and max, in ms to the microsecond."""
    out: dict[str, float | int | None] = {"count": int(values.size)}
    for percent in PERCENTS:
        value = linear_percentile(values, percent)
        out[f"p{percent}"] = None if value is None else round(value, 3)
    out["max"] = round(float(values.max()), 3) if values.size else None
    return out


def run_load(scenario: Scenario, name: str, options: dict[str, str],
             levels: Sequence[int], duration_s: float) -> list[LevelResult]:
    """Every level in turn, each on a fresh event loop; options are checked (by opening a
    transport) before the first session."""
    registry.open_transport(name, options)
    clips = [to_int16(clip) for clip in render_turns(scenario)]
    measured = _without_checks(scenario)
    results = []
    for level in levels:
        began = time.monotonic()
        recordings = asyncio.run(_level(scenario, name, options, clips, level, duration_s))
        wall = time.monotonic() - began
        results.append(LevelResult(level, evaluate(measured, name, options, "real",
                                                   recordings), wall))
    return results


def _without_checks(scenario: Scenario) -> Scenario:
    """The scenario as a level is evaluated: without the task judge and the turns' reply
    checks. The load report shows neither, and they cost an API call and a Whisper pass
    per session, hundreds at the higher levels; ``session run`` is where they count."""
    return replace(scenario, judge=None,
                   turns=tuple(replace(turn, reply=None) for turn in scenario.turns))


async def _level(scenario: Scenario, name: str, options: dict[str, str],
                 clips: list[NDArray[np.int16]], concurrency: int,
                 duration_s: float) -> list[SessionRecording]:
    """The sessions of one level, in (round, worker) order whatever order they ended in."""
    loop = asyncio.get_running_loop()
    frame = frame_samples(scenario)
    end = loop.time() + duration_s
    done: dict[tuple[int, int], SessionRecording] = {}

    async def worker(index: int) -> None:
        await asyncio.sleep(index * scenario.frame_ms / 1000.0 / concurrency)
        round_ = 0
        while round_ == 0 or loop.time() < end:
            feed = ScriptFeed(scenario, clips, frame)
            transport = registry.open_transport(name, options)
            done[(round_, index)] = await run_scenario_session(scenario, transport, feed)
            round_ += 1

    try:
        async with asyncio.TaskGroup() as group:
            for index in range(concurrency):
                group.create_task(worker(index))
    except ExceptionGroup as failed:  # a usage error in one session stops them all
        raise failed.exceptions[0] from None
    return [done[key] for key in sorted(done)]
