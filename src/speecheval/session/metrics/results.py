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
    # endpointing / decision / generation / delivery (ms), when the transport reports
    # server events (:mod:`speecheval.session.metrics.latency_split`); left out of the report else
    latency_split: dict[str, float | None] | None = None
    # what the agent said and the turn's ``reply`` checks
    # (:mod:`speecheval.session.metrics.reply_checks`); left out of the report for unchecked turns
    reply: dict[str, Any] | None = None

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
    conditions: dict[str, Any] | None = None  # only when the scenario declares conditions
    task: dict[str, Any] | None = None  # the task judge's verdict, when there is a judge

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
            out["conditions"] = self.conditions
        if self.task is not None:  # the ledger goes to its own file (judge.json)
            out["task"] = {k: v for k, v in self.task.items() if k != "ledger"}
        return out
