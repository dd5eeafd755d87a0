"""Sessions over a transport on the real clock: ``session run --realtime`` and socket agents.

Each session gets its own transport, script feed and clock origin; up to
``concurrency`` of them share one event loop (and only the CPU). That loop sends every
session's user frames, so it runs with the collector's full passes kept short
(:mod:`...core.quiet_collector`): one pass over the whole process would hold the frames
of every session at the same instant.

What a session keeps of its agent is capped (:mod:`speecheval.agents.receive_limits`)
relative to the scenario's scripted length: every turn's audio after its longest wait
(its start timeout), then the tail, and never more than ``max_duration_ms``. A session
can last longer only while the agent is still talking after the tail, up to
``max_duration_ms``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from ...agents import registry
from ...agents.base import AgentTransport
from ...agents.receive_limits import DEFAULT_LIMITS, ReceiveBudget, ReceiveLimits
from ...core.pcm import to_int16
from ...core.progress import Advance
from ...core.quiet_collector import collector_frozen
from ..record.recording import SessionRecording
from ..scenario.model import Scenario
from .realtime import run_realtime
from .synth import render_turns
from .turn_schedule import ScriptFeed


def run_real_clock_sessions(scenario: Scenario, name: str, options: dict[str, str],
                            repeat: int, concurrency: int, advance: Advance,
                            limits: ReceiveLimits = DEFAULT_LIMITS) -> list[SessionRecording]:
    """Sessions over a transport on the real clock; turns start live, as on the virtual one.

    Up to ``concurrency`` sessions run at once, on one event loop (each has its own
    transport, script and clock origin; they only share the CPU). Recordings come back
    in session order whatever order they finish in. ``advance`` is called as each one
    finishes (a progress bar). ``limits`` caps what each session keeps of its agent.
    """
    first = registry.open_transport(name, options)  # checks name and options first
    registry.check_server(first, concurrency)
    clips = [to_int16(clip) for clip in render_turns(scenario)]
    frame = frame_samples(scenario)
    # made before any session starts: a detector that loads a model must not stall the
    # event loop while other sessions are sending
    feeds = [ScriptFeed(scenario, clips, frame) for _ in range(repeat)]
    slots = asyncio.Semaphore(concurrency)

    async def one(index: int) -> SessionRecording:
        async with slots:
            transport = first if index == 0 else registry.open_transport(name, options)
            recording = await run_scenario_session(scenario, transport, feeds[index], limits)
            advance()
            return recording

    async def all_sessions() -> list[SessionRecording]:
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(one(index)) for index in range(repeat)]
        except ExceptionGroup as failed:  # a usage error in one session stops them all
            raise failed.exceptions[0] from None
        return [task.result() for task in tasks]

    with collector_frozen():
        return asyncio.run(all_sessions())


def frame_samples(scenario: Scenario) -> int:
    """Samples in one user frame (the scenario's whole milliseconds, validated)."""
    return scenario.sample_rate * int(scenario.frame_ms) // 1000


SCRIPTED_REFERENCE = "the scripted session's"
"""How the caps' fault reasons name a session's reference length."""


def scripted_samples(scenario: Scenario, clips: Sequence[NDArray[np.int16]]) -> int:
    """The scenario's scripted length in samples, the reference of its caps: each turn's
    audio (``clips``) after its longest wait, its start timeout (the scheduler starts a
    turn at its anchor plus delay or at that timeout, whichever comes first), then the
    tail; at most ``max_duration_ms``.

    >>> from types import SimpleNamespace as S
    >>> turn = S(start=S(timeout_ms=500.0))
    >>> scenario = S(sample_rate=16000, tail_ms=1000.0, max_duration_ms=60000.0,
    ...              turns=(turn, turn))
    >>> scripted_samples(scenario, [np.zeros(8000, np.int16)] * 2)  # 2 x (0.5 + 0.5) + 1 s
    48000
    """
    rate = scenario.sample_rate
    waits_ms = sum(turn.start.timeout_ms for turn in scenario.turns) + scenario.tail_ms
    script = sum(clip.size for clip in clips) + round(waits_ms * rate / 1000)
    return min(script, round(scenario.max_duration_ms * rate / 1000))


async def run_scenario_session(scenario: Scenario, transport: AgentTransport,
                               feed: ScriptFeed,
                               limits: ReceiveLimits = DEFAULT_LIMITS) -> SessionRecording:
    """One session of ``scenario`` over ``transport``, its turns played by ``feed``
    (a fresh one per session), with the turn events merged into the recording; what it
    keeps of the agent is capped by ``limits`` relative to the scripted length."""
    budget = ReceiveBudget(limits, scripted_samples(scenario, feed.scheduler.clips),
                           scenario.sample_rate, SCRIPTED_REFERENCE)
    recording = await run_realtime(
        transport, feed, scenario.sample_rate, frame_ms=int(scenario.frame_ms),
        tail_ms=round(scenario.tail_ms), max_duration_ms=round(scenario.max_duration_ms),
        agent_vad=scenario.agent_vad.settings, budget=budget)
    return feed.attach(recording)
