"""Run a scenario N times on the virtual clock and evaluate recordings into one result.

The real-clock runner produces the same :class:`SessionRecording`, so
:func:`evaluate` is shared: whichever clock recorded the sessions, metrics, summary,
assertions and reports are computed the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..agents.base import VirtualClockAgent
from ..agents.receive_limits import ReceiveLimits
from ..core.errors import InputError
from ..core.executor import Executor, LocalExecutor
from ..core.progress import Advance
from ..core.redact import Redactor
from .metrics import SessionMetrics, analyze
from .recording import SessionRecording
from .scenario import Scenario
from .summary import AssertionResult, check_assertions, session_passes, summarize
from .synth import render_turns
from .virtual_runner import run_virtual

MOCK = "mock"
# voicebench names its PCM-over-WebSocket adapter "websocket".
AGENT_ALIASES = {"websocket": "pcm-websocket"}


@dataclass(frozen=True)
class RunResult:
    """Everything a report needs about one ``session run``.

    ``options`` is the redacted description of the agent options (no credentials), and
    the recordings' event texts and faults are scrubbed of them.
    """

    scenario: Scenario
    agent: str
    options: dict[str, Any]
    clock: str
    recordings: list[SessionRecording]
    sessions: list[SessionMetrics]
    session_passed: list[bool]
    summary: dict[str, Any]
    assertions: list[AssertionResult]
    limits: ReceiveLimits | None = None
    """The caps on what each session kept of its agent (None: not capped, the virtual
    clock)."""

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.assertions)

    @property
    def faulted(self) -> bool:
        return any(recording.fault is not None for recording in self.recordings)


def agent_name(scenario: Scenario, requested: str | None) -> str:
    """The agent to run: ``--agent`` if given, else the scenario's, with aliases resolved."""
    name = requested or scenario.agent.type
    return AGENT_ALIASES.get(name, name)


def merged_options(scenario: Scenario, name: str, cli: dict[str, Any]) -> dict[str, Any]:
    """Scenario options (when the scenario names the same agent) overridden by ``-o``."""
    same = AGENT_ALIASES.get(scenario.agent.type, scenario.agent.type) == name
    return {**(scenario.agent.options if same else {}), **cli}


def mock_factory(scenario: Scenario, options: dict[str, Any],
                 cli_keys: set[str]) -> Callable[[int], VirtualClockAgent]:
    """Mock agents for session 0, 1, ...; session k uses seed ``seed + k``. The factory
    is a plain value, so it can be sent to worker processes with the sessions."""
    from ..agents.mock import MockOptionError, MockSettings  # pydantic: when a run starts

    try:
        settings = MockSettings.from_options(options)
    except MockOptionError as exc:
        if exc.key in cli_keys:
            raise InputError(f"-o {exc.key}: {exc.problem}") from exc
        line = scenario.agent.option_lines.get(exc.key, scenario.agent.line)
        raise InputError(f"adapter.options.{exc.key} (line {line}): {exc.problem}",
                         path=scenario.path) from exc
    return MockMaker(dict(options), settings.seed)


@dataclass(frozen=True)
class MockMaker:
    """Makes the mock agent of session ``index`` (seed ``seed + index``)."""

    options: dict[str, Any]
    seed: int

    def __call__(self, index: int) -> VirtualClockAgent:
        from ..agents.mock import MockAgent, MockSettings

        return MockAgent(MockSettings.from_options({**self.options, "seed": self.seed + index}))


def run_virtual_sessions(scenario: Scenario, make_agent: Callable[[int], VirtualClockAgent],
                         repeat: int, advance: Advance | None = None,
                         executor: Executor | None = None) -> list[SessionRecording]:
    """``repeat`` sessions on the virtual clock, the turn audio rendered once, run on
    ``executor`` (default: one after another here; ``make_agent`` must then be picklable,
    as :class:`MockMaker` is); recordings in session order. ``advance`` (a progress bar)
    is called after each. An error in a session (bad agent options) is raised."""
    clips = render_turns(scenario)
    outcomes = (executor or LocalExecutor(1)).map(
        partial(_virtual_session, scenario, clips, make_agent), list(range(repeat)),
        advance=advance or _no_progress, stop_on=(InputError,), name=_session_name)
    return [outcome.get() for outcome in outcomes]


def _session_name(index: int, position: int) -> str:
    """How an error names session ``index`` (its number, as in ``sessions/001``)."""
    return f"session {index + 1}"


def _virtual_session(scenario: Scenario, clips: list[NDArray[np.float32]],
                     make_agent: Callable[[int], VirtualClockAgent],
                     index: int) -> SessionRecording:
    """Session ``index`` (a work item of :func:`run_virtual_sessions`)."""
    return run_virtual(scenario, clips, make_agent(index))


def _no_progress(units: int = 1) -> None:
    """No progress bar."""


def evaluate(scenario: Scenario, agent: str, options: dict[str, Any], clock: str,
             recordings: list[SessionRecording],
             limits: ReceiveLimits | None = None) -> RunResult:
    """Metrics per session, the summary over all of them, and the assertions.

    Secrets in ``options`` (and key variables) are removed here, once for every clock and
    transport: the result keeps only the redacted description and scrubbed recordings.
    """
    redactor = Redactor(options)
    scrub = redactor.scrubber()
    recordings = [recording.scrubbed(scrub) for recording in recordings]
    sessions = [analyze(recording, scenario) for recording in recordings]
    passed = [session_passes(session, scenario.assertions) for session in sessions]
    summary = summarize(sessions, passed)
    return RunResult(scenario=scenario, agent=agent, options=redactor.describe(), clock=clock,
                     recordings=recordings, sessions=sessions, session_passed=passed,
                     summary=summary, assertions=check_assertions(summary, scenario.assertions),
                     limits=limits)
