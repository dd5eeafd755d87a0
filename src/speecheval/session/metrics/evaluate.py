"""Recorded sessions into one evaluated run: metrics per session, the summary over all of
them, and the scenario's assertions.

Whichever clock or transport recorded the sessions (``session run`` on either clock, each
level of ``session load``), they are evaluated here, the same way. Secrets in the agent
options (and key variables) are removed here too, once for every clock and transport:
the result keeps only the redacted description and scrubbed recordings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...agents.receive_limits import ReceiveLimits
from ...core.redact import Redactor
from ..record.recording import SessionRecording
from ..scenario.model import Scenario
from .analyze import analyze
from .reply_checks import recogniser_identity
from .results import SessionMetrics
from .summary import AssertionResult, RunSummary, check_assertions, session_passes, summarize

if TYPE_CHECKING:
    from ...core.schema import Schema


@dataclass(frozen=True)
class RunResult:
    """Everything a report needs about one ``session run``: the typed model every writer
    of the run directory takes (report.json, report.md, report.html, the voicebench
    report and the terminal summary).

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
    summary: RunSummary
    assertions: list[AssertionResult]
    limits: ReceiveLimits | None = None
    """The caps on what each session kept of its agent (None: not capped, the virtual
    clock)."""
    agent_settings: Schema | None = None
    """The agent's settings as it read them from its options, where speecheval builds the
    agent (the mock); None for other agents."""
    agent_asr: dict[str, object] | None = None
    """The identity of the recogniser that heard the agent track (reply checks or the task
    judge), for the provenance record; None when nothing listened."""

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.assertions)

    @property
    def faulted(self) -> bool:
        return any(recording.fault is not None for recording in self.recordings)


def evaluate(scenario: Scenario, agent: str, options: dict[str, Any], clock: str,
             recordings: list[SessionRecording], limits: ReceiveLimits | None = None,
             agent_settings: Schema | None = None) -> RunResult:
    """Metrics per session, the summary over all of them, and the assertions;
    ``limits`` and ``agent_settings`` are passed through to the result."""
    redactor = Redactor(options)
    scrub = redactor.scrubber()
    recordings = [recording.scrubbed(scrub) for recording in recordings]
    sessions = [analyze(recording, scenario) for recording in recordings]
    passed = [session_passes(session, scenario.assertions) for session in sessions]
    summary = summarize(sessions, passed)
    return RunResult(scenario=scenario, agent=agent, options=redactor.describe(), clock=clock,
                     recordings=recordings, sessions=sessions, session_passed=passed,
                     summary=summary, assertions=check_assertions(summary, scenario.assertions),
                     limits=limits, agent_settings=agent_settings,
                     agent_asr=recogniser_identity() if _listened(scenario) else None)


def _listened(scenario: Scenario) -> bool:
    """Whether the agent track was transcribed: a turn checks its reply, or a judge reads
    the call."""
    return scenario.judge is not None or any(turn.reply is not None
                                             for turn in scenario.turns)
