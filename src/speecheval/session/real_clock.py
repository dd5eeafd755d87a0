"""Sessions over a transport on the real clock: ``session run --realtime`` and socket agents.

Each session gets its own transport, script feed and clock origin; up to
``concurrency`` of them share one event loop (and only the CPU).
"""

from __future__ import annotations

import asyncio

from ..agents import registry
from ..agents.base import AgentTransport
from ..core.pcm import to_int16
from ..core.progress import Advance
from .realtime import run_realtime
from .recording import SessionRecording
from .scenario import Scenario
from .synth import render_turns
from .turn_schedule import ScriptFeed


def run_real_clock_sessions(scenario: Scenario, name: str, options: dict[str, str],
                            repeat: int, concurrency: int,
                            advance: Advance) -> list[SessionRecording]:
    """Sessions over a transport on the real clock; turns start live, as on the virtual one.

    Up to ``concurrency`` sessions run at once, on one event loop (each has its own
    transport, script and clock origin; they only share the CPU). Recordings come back
    in session order whatever order they finish in. ``advance`` is called as each one
    finishes (a progress bar).
    """
    first = registry.open_transport(name, options)  # checks name and options first
    clips = [to_int16(clip) for clip in render_turns(scenario)]
    frame = frame_samples(scenario)
    # made before any session starts: a detector that loads a model must not stall the
    # event loop while other sessions are sending
    feeds = [ScriptFeed(scenario, clips, frame) for _ in range(repeat)]
    slots = asyncio.Semaphore(concurrency)

    async def one(index: int) -> SessionRecording:
        async with slots:
            transport = first if index == 0 else registry.open_transport(name, options)
            recording = await run_scenario_session(scenario, transport, feeds[index])
            advance()
            return recording

    async def all_sessions() -> list[SessionRecording]:
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(one(index)) for index in range(repeat)]
        except ExceptionGroup as failed:  # a usage error in one session stops them all
            raise failed.exceptions[0] from None
        return [task.result() for task in tasks]

    return asyncio.run(all_sessions())


def frame_samples(scenario: Scenario) -> int:
    """Samples in one user frame (the scenario's whole milliseconds, validated)."""
    return scenario.sample_rate * int(scenario.frame_ms) // 1000


async def run_scenario_session(scenario: Scenario, transport: AgentTransport,
                               feed: ScriptFeed) -> SessionRecording:
    """One session of ``scenario`` over ``transport``, its turns played by ``feed``
    (a fresh one per session), with the turn events merged into the recording."""
    recording = await run_realtime(
        transport, feed, scenario.sample_rate, frame_ms=int(scenario.frame_ms),
        tail_ms=round(scenario.tail_ms), max_duration_ms=round(scenario.max_duration_ms),
        agent_vad=scenario.agent_vad.settings)
    return feed.attach(recording)
