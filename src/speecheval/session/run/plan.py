"""Which agent runs a scenario, with which options, on which clock, and how: the plan of
``session run``, made before any session starts.

The agent is the one ``--agent`` names, else the scenario's. Its class says its clock
(:attr:`speecheval.agents.base.Agent.clock`): the mock and custom
:class:`~speecheval.agents.base.VirtualClockAgent` classes run on the virtual clock,
transports on the real one (``--realtime`` asks for the real clock and refuses an agent
that cannot run on it). Options come from the scenario when it names the same agent,
overridden by ``-o``: parsed as YAML for in-process agents, as text for transports.
Every usage error (agent, options, clock, the judge's key) is raised here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...agents import registry
from ...agents.base import Clock, VirtualClockAgent
from ...agents.receive_limits import DEFAULT_LIMITS, ReceiveLimits
from ...core.errors import InputError
from ...core.executor import Executor, LocalExecutor
from ...core.progress import Advance
from ..record.recording import SessionRecording
from ..scenario.judge import open_judge
from ..scenario.model import AGENT_ALIASES, MOCK, Scenario
from .real_clock import run_real_clock_sessions
from .virtual_sessions import run_virtual_sessions

if TYPE_CHECKING:
    from ...agents.mock import MockSettings
    from ...core.schema import Schema

Runner = Callable[[Advance], list[SessionRecording]]


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


@dataclass(frozen=True)
class Plan:
    """The agent's name, its clock, its options as the agent gets them, what each session
    keeps of it (None: not capped, the virtual clock), how to run the sessions, and the
    agent's settings where speecheval reads them (the mock's)."""

    agent: str
    clock: Clock
    options: dict[str, Any]
    limits: ReceiveLimits | None
    run: Runner
    settings: Schema | None = None


def agent_name(scenario: Scenario, requested: str | None) -> str:
    """The agent to run: ``--agent`` if given, else the scenario's, with aliases resolved."""
    name = requested or scenario.agent.type
    return AGENT_ALIASES.get(name, name)


def merged_options(scenario: Scenario, name: str, cli: dict[str, Any]) -> dict[str, Any]:
    """Scenario options (when the scenario names the same agent) overridden by ``-o``."""
    same = AGENT_ALIASES.get(scenario.agent.type, scenario.agent.type) == name
    return {**(scenario.agent.options if same else {}), **cli}


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


def plan_run(scenario: Scenario, request: RunRequest) -> Plan:
    """The plan of ``request`` on ``scenario``; every usage error (agent, options, clock)
    is raised here, before a session starts."""
    name = agent_name(scenario, request.agent)
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
        return Plan(name, "virtual", options, None, lambda advance: run_virtual_sessions(
            scenario, make, repeat, advance, request.executor), make.settings)
    cls = registry.agent_class(name)
    if issubclass(cls, VirtualClockAgent) and not request.realtime:
        make_plugin = PluginMaker(name, options)
        make_plugin(0)  # options checked before the first session
        return Plan(name, "virtual", options, None, lambda advance: run_virtual_sessions(
            scenario, make_plugin, repeat, advance, request.executor))
    if not _runs_here(request.executor):
        raise InputError(f"agent {name} runs on the real clock: --jobs and --executor spread "
                         "virtual-clock sessions only; use --concurrency")
    text = transport_options(scenario, name, request.raw)
    return Plan(name, "real", dict(text), request.limits,
                lambda advance: run_real_clock_sessions(
                    scenario, name, text, repeat, request.concurrency, advance,
                    request.limits))


def _runs_here(executor: Executor | None) -> bool:
    """Whether ``executor`` runs everything in this process."""
    return executor is None or (isinstance(executor, LocalExecutor) and executor.jobs <= 1)


def mock_factory(scenario: Scenario, options: dict[str, Any], cli_keys: set[str]) -> MockMaker:
    """Mock agents for session 0, 1, ...; session k uses seed ``seed + k``. The factory
    is a plain value, so it can be sent to worker processes with the sessions."""
    from ...agents.mock import MockOptionError, MockSettings  # pydantic: when a run starts

    try:
        settings = MockSettings.from_options(options)
    except MockOptionError as exc:
        if exc.key in cli_keys:
            raise InputError(f"-o {exc.key}: {exc.problem}") from exc
        line = scenario.agent.option_lines.get(exc.key, scenario.agent.line)
        raise InputError(f"adapter.options.{exc.key} (line {line}): {exc.problem}",
                         path=scenario.path) from exc
    return MockMaker(dict(options), settings)


@dataclass(frozen=True)
class MockMaker:
    """Makes the mock agent of session ``index`` (seed ``settings.seed + index``);
    ``settings`` are what the mock read from ``options``."""

    options: dict[str, Any]
    settings: MockSettings

    def __call__(self, index: int) -> VirtualClockAgent:
        from ...agents.mock import MockAgent, MockSettings

        return MockAgent(MockSettings.from_options({**self.options,
                                                    "seed": self.settings.seed + index}))


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
