"""The metrics of one recorded session: each scripted turn's, and the session's.

:mod:`speecheval.session.metrics.analyze` makes them, and the passes it drives over the
turns (:mod:`~speecheval.session.metrics.latency_split`,
:mod:`~speecheval.session.metrics.reply_checks`,
:mod:`~speecheval.session.metrics.task_judge`) read and refine them; they import the
types from here, so that no pass imports the module that drives it. Times are in
seconds unless a name ends in ``_ms``; a missing value is ``None`` with a note saying why.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ...core.results import register
from ...core.timeline import Span


@dataclass(frozen=True)
class LatencySplit:
    """Where a turn's response latency went, from the server's own events (ms; None: the
    event that bounds the part did not come)."""

    endpointing_ms: float | None = None
    decision_ms: float | None = None
    generation_ms: float | None = None
    delivery_ms: float | None = None


@dataclass(frozen=True)
class ReplyFindings:
    """What the agent said in a turn's window, its WER against the turn's ``reply.text``,
    and the verdict of each ``reply`` check (by name, in the order they are declared)."""

    transcript: str | None
    wer: float | None
    checks: dict[str, bool]


@dataclass(frozen=True)
class JudgeLedger:
    """The task judge's request and raw answer for one session (``judge.json``)."""

    judge: dict[str, object]
    messages: list[dict[str, str]]
    response: str
    failures: str

    def report_dict(self) -> dict[str, Any]:
        return {"judge": self.judge, "messages": self.messages, "response": self.response,
                "failures": self.failures}


@dataclass(frozen=True)
class TaskVerdict:
    """The task judge's verdict on a session: ``success`` is None when it gave no valid
    answer (``problem`` says why); ``ledger`` goes to its own file."""

    model: str
    model_reported: str | None
    success: bool | None
    reason: str | None
    problem: str | None
    attempts: int
    ledger: JudgeLedger

    def report_dict(self) -> dict[str, Any]:
        """The session's ``task`` entry in report.json (the ledger is ``judge.json``)."""
        return {"model": self.model, "model_reported": self.model_reported,
                "success": self.success, "reason": self.reason, "problem": self.problem,
                "attempts": self.attempts}


@dataclass(frozen=True)
class SelfInterruption:
    """The agent stopped itself at ``t_s`` while the caller was silent, in ``turn``."""

    t_s: float
    turn: str | None


@dataclass(frozen=True)
class TurnDamage:
    """The user frames of a turn that the network lost or delivered late."""

    id: str
    lost: int
    late: int


@dataclass(frozen=True)
class NetworkDamage:
    """What the scenario's network did to the session's user frames."""

    packets: int
    lost: int
    late: int
    reordered: int
    turns: tuple[TurnDamage, ...]
    affected_turns: tuple[str, ...]

    def report_dict(self) -> dict[str, Any]:
        return {"packets": self.packets, "lost": self.lost, "late": self.late,
                "reordered": self.reordered,
                "turns": [{"id": t.id, "lost": t.lost, "late": t.late} for t in self.turns],
                "affected_turns": list(self.affected_turns)}


@dataclass(frozen=True)
class ConditionFindings:
    """What the scenario's conditions did to a session: the agent's self-interruptions,
    and the network's damage when the scenario declares a network."""

    self_interruptions: tuple[SelfInterruption, ...]
    network: NetworkDamage | None = None

    def report_dict(self) -> dict[str, Any]:
        """The session's ``conditions`` entry in report.json."""
        out: dict[str, Any] = {"self_interruptions": [
            {"t_s": found.t_s, "turn": found.turn} for found in self.self_interruptions]}
        if self.network is not None:
            out["network"] = self.network.report_dict()
        return out


@register("session.turn_metrics")
@dataclass(frozen=True)
class TurnMetrics:
    """One scripted turn. Times in seconds unless the name ends in ``_ms``.

    ``report_dict`` is the turn's entry in ``report.json`` (no ``kind``); the lossless form is
    :func:`speecheval.core.results.to_dict`.
    """

    id: str
    expect: str
    trigger: str
    start_s: float | None
    end_s: float | None
    audio_end_s: float | None
    user_onset_s: float | None
    user_offset_s: float | None
    responded: bool | None
    response_latency_ms: float | None
    ttfa_ms: float | None
    talk_over: bool | None
    stopped: bool | None
    stop_ms: float | None
    clear_stop_ms: float | None
    false_barge_in: bool | None
    spurious_response: bool | None
    transcript: str | None
    wer: float | None
    passed: bool
    notes: tuple[str, ...]
    # endpointing / decision / generation / delivery (ms), when the transport reports server
    # events (:mod:`speecheval.session.metrics.latency_split`); left out of the report else
    latency_split: LatencySplit | None = None
    # what the agent said and the turn's ``reply`` checks
    # (:mod:`speecheval.session.metrics.reply_checks`); left out of the report for unchecked turns
    reply: ReplyFindings | None = None

    def report_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["notes"] = list(self.notes)
        for optional in ("latency_split", "reply"):
            if out[optional] is None:
                del out[optional]
        return out


@register("session.metrics")
@dataclass(frozen=True)
class SessionMetrics:
    """One session: its turns, speech totals, and the detected segments of both tracks.

    ``report_dict`` is the session's entry in ``report.json`` (segments as seconds, no
    ``kind``); the lossless form is :func:`speecheval.core.results.to_dict`.
    """

    turns: tuple[TurnMetrics, ...]
    duration_s: float
    user_speech_ms: float
    agent_speech_ms: float
    overlap_ms: float
    talk_over_ms: float
    truncated: bool
    fault: str | None
    user_segments: tuple[Span, ...]
    agent_segments: tuple[Span, ...]
    send_lateness_ms: dict[str, float | None]
    conditions: ConditionFindings | None = None  # only when the scenario declares conditions
    task: TaskVerdict | None = None  # the task judge's verdict, when there is a judge

    def report_dict(self) -> dict[str, Any]:
        out = {
            "turns": [turn.report_dict() for turn in self.turns],
            "duration_s": self.duration_s,
            "user_speech_ms": self.user_speech_ms,
            "agent_speech_ms": self.agent_speech_ms,
            "overlap_ms": self.overlap_ms,
            "talk_over_ms": self.talk_over_ms,
            "truncated": self.truncated,
            "fault": self.fault,
            "user_segments": [[s.start_s, s.end_s] for s in self.user_segments],
            "agent_segments": [[s.start_s, s.end_s] for s in self.agent_segments],
            "send_lateness_ms": self.send_lateness_ms,
        }
        if self.conditions is not None:
            out["conditions"] = self.conditions.report_dict()
        if self.task is not None:  # the ledger goes to its own file (judge.json)
            out["task"] = self.task.report_dict()
        return out
