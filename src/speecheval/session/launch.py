"""Which agent runs a scenario, on which clock, and running it: the core of ``session run``.

The agent is the one ``--agent`` names, else the scenario's. Its class says its clock
(:attr:`speecheval.agents.base.Agent.clock`): the mock and custom
:class:`~speecheval.agents.base.VirtualClockAgent` classes run on the virtual clock,
transports on the real one (``--realtime`` asks for the real clock and refuses an agent
that cannot run on it). Options come from the scenario when it names the same agent,
overridden by ``-o``: parsed as YAML for in-process agents, as text for transports.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..agents import registry
from ..agents.base import Clock, VirtualClockAgent
from ..agents.receive_limits import DEFAULT_LIMITS, ReceiveLimits
from ..core.errors import InputError
from ..core.executor import Executor, LocalExecutor
from ..core.progress import Advance, progress
from .bench import (
    AGENT_ALIASES,
    MOCK,
    RunResult,
    agent_name,
    evaluate,
    merged_options,
    mock_factory,
    run_virtual_sessions,
)
from .real_clock import run_real_clock_sessions
from .recording import SessionRecording
from .scenario import Scenario
from .task_judge import open_judge


@dataclass(frozen=True)
class RunRequest:
    """What ``session run`` was asked for, once its options are parsed.

    ``parsed`` holds the ``-o`` values parsed as YAML, ``raw`` the same values as typed.
    """

    agent: str | None = None
    parsed: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, str] = field(default_factory=dict)
    repeat: int = 1
    concurrency: int = 1
    realtime: bool = False
    executor: Executor | None = None
    """Where virtual-clock sessions run (default: one after another in this process)."""
    limits: ReceiveLimits = DEFAULT_LIMITS
    """What a real-clock session keeps of its agent (the virtual clock runs agents made
    here, which are not capped)."""


def check_scenario_agent(scenario: Scenario) -> None:
    """Refuse the agent the scenario names if ``session run`` could not build it: an
    InputError naming the file, the key and its line, and the agents there are.

    ``session validate`` calls it so that a file it passes does not then fail to run
    (``adapter: livekit`` passed, and the run stopped on "unknown agent"); ``session
    run`` calls it when ``--agent`` does not override the scenario's choice.
    """
    spec = scenario.agent
    name = AGENT_ALIASES.get(spec.type, spec.type)
    if name == MOCK:
        return
    where = f"{spec.key}.type (line {spec.type_line})"
    if name not in registry.BUILTIN and ":" not in name:
        aliases = [f"{alias} (voicebench's name for {real})"
                   for alias, real in AGENT_ALIASES.items()]
        known = ", ".join(sorted([MOCK, *registry.BUILTIN, *aliases]))
        raise InputError(f"{where}: unknown agent {spec.type!r}; the agents are {known}, "
                         "or module:Class for your own", path=scenario.path)
    try:
        registry.agent_class(name)
    except InputError as exc:
        raise InputError(f"{where}: {exc.problem}", path=scenario.path) from None


def run_sessions(scenario: Scenario, request: RunRequest) -> RunResult:
    """Run ``request.repeat`` sessions of ``scenario`` and evaluate them (progress shown
    on a terminal, one step per session)."""
    name = agent_name(scenario, request.agent)
    clock, options, run = _plan(scenario, name, request)
    with progress(request.repeat, f"sessions of {scenario.name}", unit="session") as advance:
        recordings = run(advance)
    return evaluate(scenario, name, options, clock, recordings,
                    limits=request.limits if clock == "real" else None)


Runner = Callable[[Advance], list[SessionRecording]]


def _plan(scenario: Scenario, name: str,
          request: RunRequest) -> tuple[Clock, dict[str, Any], Runner]:
    """The clock, the agent options as the agent gets them, and how to run the sessions;
    every usage error (agent, options, clock) is raised here, before a session starts."""
    if request.agent is None:
        check_scenario_agent(scenario)
    options = merged_options(scenario, name, request.parsed)
    repeat = request.repeat
    if scenario.judge is not None:
        open_judge(scenario.judge)  # its key must be there before a live session runs
    if name == MOCK:
        if request.realtime:
            raise InputError("the mock agent runs on the virtual clock only; --realtime "
                             "needs a transport agent such as pcm-websocket")
        make = mock_factory(scenario, options, set(request.parsed))
        return "virtual", options, lambda advance: run_virtual_sessions(
            scenario, make, repeat, advance, request.executor)
    cls = registry.agent_class(name)
    if issubclass(cls, VirtualClockAgent) and not request.realtime:
        make_plugin = PluginMaker(name, options)
        make_plugin(0)  # options checked before the first session
        return "virtual", options, lambda advance: run_virtual_sessions(
            scenario, make_plugin, repeat, advance, request.executor)
    if not _runs_here(request.executor):
        raise InputError(f"agent {name} runs on the real clock: --jobs and --executor spread "
                         "virtual-clock sessions only; use --concurrency")
    text = transport_options(scenario, name, request.raw)
    return "real", dict(text), lambda advance: run_real_clock_sessions(
        scenario, name, text, repeat, request.concurrency, advance, request.limits)


def _runs_here(executor: Executor | None) -> bool:
    """Whether ``executor`` runs everything in this process."""
    return executor is None or (isinstance(executor, LocalExecutor) and executor.jobs <= 1)


@dataclass(frozen=True)
class PluginMaker:
    """Makes a session's agent from a :class:`VirtualClockAgent` class named ``name``
    (picklable, so sessions can run in worker processes that import the class there)."""

    name: str
    options: dict[str, Any]

    def __call__(self, index: int) -> VirtualClockAgent:
        agent = registry.build_agent(self.name, registry.agent_class(self.name), self.options)
        assert isinstance(agent, VirtualClockAgent)
        return agent


def transport_options(scenario: Scenario, name: str, raw: dict[str, str]) -> dict[str, str]:
    """A transport's options as text: the scenario's (when it names this agent) under
    the ``-o`` values as typed."""
    return {**{key: _option_text(value) for key, value
               in merged_options(scenario, name, {}).items()}, **raw}


def _option_text(value: Any) -> str:
    """A scenario option as the transports take it: maps and lists as JSON, else text."""
    return json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else str(value)
