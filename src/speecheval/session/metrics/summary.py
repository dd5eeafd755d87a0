"""Summary over all turns of all sessions of a run, and the scenario's assertions.

Distributions report count, min, p50, p90, max and mean, with percentiles by linear
interpolation (:func:`speecheval.core.stats.linear_percentile`). Shares of sessions and
turns carry a 95% Wilson interval, so ``-n 5`` with 5 passes does not read as certainty.
An assertion on a value that does not exist fails: a broken transcript path must not
pass a ``max_wer`` limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.share import Share
from ...core.stats import linear_percentile
from ..scenario.model import ASSERTIONS
from .results import SessionMetrics, TurnMetrics

# Assertions about the run as a whole, which one session alone cannot be judged on.
RUN_LEVEL_ASSERTIONS = frozenset({"min_session_pass_rate"})


@dataclass(frozen=True)
class Distribution:
    """count, min, p50, p90, max and mean of some values; all but ``count`` are None when
    there are none."""

    count: int
    min: float | None
    p50: float | None
    p90: float | None
    max: float | None
    mean: float | None

    def report_dict(self) -> dict[str, Any]:
        return {"count": self.count, "min": self.min, "p50": self.p50, "p90": self.p90,
                "max": self.max, "mean": self.mean}


def distribution(values: list[float]) -> Distribution:
    """count, min, p50, p90, max, mean; everything but count is None when empty.

    Worked example: for 100, 200, 400 the p90 is at rank 0.9 * 2 = 1.8, between 200 and
    400: 200 + 0.8 * 200 = 360; the mean is 700 / 3.

    >>> d = distribution([400.0, 100.0, 200.0])
    >>> d.p50, d.p90, round(d.mean, 3)
    (200.0, 360.0, 233.333)
    """
    if not values:
        return Distribution(0, None, None, None, None, None)
    array = np.asarray(values, dtype=np.float64)
    return Distribution(len(values), float(array.min()), linear_percentile(array, 50),
                        linear_percentile(array, 90), float(array.max()),
                        float(array.mean()))


def share_dict(share: Share) -> dict[str, Any]:
    """A :class:`~speecheval.core.share.Share` in the summary's file shape (``rate`` and
    ``ci95``, as voicebench reads them)."""
    return {"count": share.count, "n": share.n, "rate": share.value,
            "ci95": None if share.interval is None else list(share.interval)}


@dataclass(frozen=True)
class WerMean:
    """The mean word error rate over the turns that have one."""

    count: int
    mean: float | None


@dataclass(frozen=True)
class LatenessPeaks:
    """The worst session's send lateness: its p99 and its max (None: no frames)."""

    p99: float | None
    max: float | None


@dataclass(frozen=True)
class TaskSuccess:
    """The task judge's verdicts: the share of sessions it judged a success, and how many
    answers were invalid (each counts as a failure)."""

    share: Share
    invalid: int


@dataclass(frozen=True)
class ConditionCounts:
    """What the scenario's conditions did over the run."""

    self_interruptions: int
    network_affected_turns: int


@dataclass(frozen=True)
class RunSummary:
    """The summary over every turn of every session of a run, typed; ``report_dict`` is
    its ``summary`` in report.json. The optional parts are None when the run has nothing
    of theirs (no judge, no reply checks, no server events, no conditions, no pass flags).
    """

    sessions: int
    turns: Share
    not_played_turns: int
    truncated_sessions: int
    faulted_sessions: int
    response_latency_ms: Distribution
    ttfa_ms: Distribution
    missed_responses: int
    talk_overs: int
    barge_in: Share
    barge_in_stop_ms: Distribution
    clear_stop_ms: Distribution
    noise_turns: int
    false_barge_ins: int
    spurious_responses: int
    wer: WerMean
    overlap_ms: float
    talk_over_ms: float
    send_lateness_ms: LatenessPeaks
    task_success: TaskSuccess | None = None
    reply_checks: Share | None = None
    latency_split_ms: dict[str, Distribution] | None = None
    """endpointing, decision, generation, delivery (the parts' names without ``_ms``)."""
    conditions: ConditionCounts | None = None
    session_pass: Share | None = None

    def report_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "sessions": self.sessions,
            "turns": share_dict(self.turns),
            "not_played_turns": self.not_played_turns,
            "truncated_sessions": self.truncated_sessions,
            "faulted_sessions": self.faulted_sessions,
            "response_latency_ms": self.response_latency_ms.report_dict(),
            "ttfa_ms": self.ttfa_ms.report_dict(),
            "missed_responses": self.missed_responses,
            "talk_overs": self.talk_overs,
            "barge_in": share_dict(self.barge_in),
            "barge_in_stop_ms": self.barge_in_stop_ms.report_dict(),
            "clear_stop_ms": self.clear_stop_ms.report_dict(),
            "noise_turns": self.noise_turns,
            "false_barge_ins": self.false_barge_ins,
            "spurious_responses": self.spurious_responses,
            "wer": {"count": self.wer.count, "mean": self.wer.mean},
            "overlap_ms": self.overlap_ms,
            "talk_over_ms": self.talk_over_ms,
            "send_lateness_ms": {"p99": self.send_lateness_ms.p99,
                                 "max": self.send_lateness_ms.max},
        }
        if self.task_success is not None:
            out["task_success"] = {**share_dict(self.task_success.share),
                                   "invalid": self.task_success.invalid}
        if self.reply_checks is not None:
            out["reply_checks"] = share_dict(self.reply_checks)
        if self.latency_split_ms is not None:
            out["latency_split_ms"] = {part: values.report_dict()
                                       for part, values in self.latency_split_ms.items()}
        if self.conditions is not None:
            out["conditions"] = {
                "self_interruptions": self.conditions.self_interruptions,
                "network_affected_turns": self.conditions.network_affected_turns}
        if self.session_pass is not None:
            out["session_pass"] = share_dict(self.session_pass)
        return out


def _values(turns: list[TurnMetrics], key: str) -> list[float]:
    return [value for turn in turns if (value := getattr(turn, key)) is not None]


def _largest(sessions: list[SessionMetrics], key: str) -> float | None:
    """The worst session's send-lateness statistic (None on no frames)."""
    values = [v for s in sessions if (v := s.send_lateness_ms[key]) is not None]
    return max(values) if values else None


def summarize(sessions: list[SessionMetrics],
              session_passed: list[bool] | None = None) -> RunSummary:
    """The run's summary; ``session_passed`` (one flag per session) adds the pass rate."""
    turns = [turn for session in sessions for turn in session.turns]
    played = [turn for turn in turns if turn.start_s is not None]
    # Every turn counts, played or not: a respond turn that never played got no answer
    # and a stop turn that never played was not a successful barge-in, so a truncated run
    # cannot pass max_missed_responses or min_barge_in_success_rate by dropping them.
    respond = [turn for turn in turns if turn.expect == "respond"]
    stops = [turn for turn in turns if turn.expect == "stop"]
    noise = [turn for turn in turns if turn.expect == "ignore"]
    wers = _values(turns, "wer")
    judged = [s.task for s in sessions if s.task is not None]
    replies = [turn.reply for turn in turns if turn.reply is not None]
    split = [turn.latency_split for turn in respond if turn.latency_split is not None]
    conditioned = [s.conditions for s in sessions if s.conditions is not None]
    return RunSummary(
        sessions=len(sessions),
        turns=Share.wilson(sum(turn.passed for turn in turns), len(turns)),
        not_played_turns=len(turns) - len(played),
        truncated_sessions=sum(session.truncated for session in sessions),
        faulted_sessions=sum(session.fault is not None for session in sessions),
        response_latency_ms=distribution(_values(respond, "response_latency_ms")),
        ttfa_ms=distribution(_values(respond, "ttfa_ms")),
        missed_responses=sum(turn.responded is not True for turn in respond),
        talk_overs=sum(turn.talk_over is True for turn in respond),
        barge_in=Share.wilson(sum(turn.stopped is True for turn in stops), len(stops)),
        barge_in_stop_ms=distribution(_values(stops, "stop_ms")),
        clear_stop_ms=distribution(_values(stops, "clear_stop_ms")),
        noise_turns=len(noise),
        false_barge_ins=sum(turn.false_barge_in is True for turn in noise),
        spurious_responses=sum(turn.spurious_response is True for turn in noise),
        wer=WerMean(len(wers), float(np.mean(wers)) if wers else None),
        overlap_ms=float(sum(session.overlap_ms for session in sessions)),
        talk_over_ms=float(sum(session.talk_over_ms for session in sessions)),
        send_lateness_ms=LatenessPeaks(_largest(sessions, "p99"), _largest(sessions, "max")),
        # only when the scenario has a judge; an invalid answer counts as a failure
        task_success=(TaskSuccess(Share.wilson(sum(t.success is True for t in judged),
                                               len(judged)),
                                  sum(t.success is None for t in judged))
                      if judged else None),
        # only when the scenario checks what the agent said
        reply_checks=(Share.wilson(sum(all(r.checks.values()) for r in replies),
                                   len(replies)) if replies else None),
        # only when a transport reported server events
        latency_split_ms=({part.removesuffix("_ms"): distribution(
                               [v for s in split if (v := getattr(s, part)) is not None])
                           for part in ("endpointing_ms", "decision_ms", "generation_ms",
                                        "delivery_ms")} if split else None),
        # only for scenarios that declare conditions
        conditions=(ConditionCounts(
            self_interruptions=sum(len(c.self_interruptions) for c in conditioned),
            network_affected_turns=sum(len(c.network.affected_turns)
                                       for c in conditioned if c.network is not None))
                    if conditioned else None),
        session_pass=(None if session_passed is None
                      else Share.wilson(sum(session_passed), len(session_passed))),
    )


@dataclass(frozen=True)
class AssertionResult:
    key: str
    limit: float
    actual: float | None
    passed: bool

    def report_dict(self) -> dict[str, Any]:
        return {"key": self.key, "limit": self.limit, "actual": self.actual,
                "passed": self.passed}


# Where each assertion key's value sits in the summary: a path of attributes of
# :class:`RunSummary` (a share's rate is its ``value``). voicebench's report names some of
# them differently (report_voicebench.VOICEBENCH_ASSERTION_PATHS).
ASSERTION_PATHS: dict[str, tuple[str, ...]] = {
    "max_response_latency_ms": ("response_latency_ms", "max"),
    "p50_response_latency_ms": ("response_latency_ms", "p50"),
    "p90_response_latency_ms": ("response_latency_ms", "p90"),
    "p50_ttfa_ms": ("ttfa_ms", "p50"),
    "p90_ttfa_ms": ("ttfa_ms", "p90"),
    "max_barge_in_stop_ms": ("barge_in_stop_ms", "max"),
    "min_barge_in_success_rate": ("barge_in", "value"),
    "max_false_barge_ins": ("false_barge_ins",),
    "max_spurious_responses": ("spurious_responses",),
    "max_missed_responses": ("missed_responses",),
    "max_talk_over_ms": ("talk_over_ms",),
    "max_wer": ("wer", "mean"),
    "min_session_pass_rate": ("session_pass", "value"),
    "max_self_interruptions": ("conditions", "self_interruptions"),
    "min_task_success_rate": ("task_success", "share", "value"),
}


def assertion_value(summary: RunSummary, key: str) -> float | None:
    """The summary value an assertion key limits (None when it does not exist)."""
    value: object = summary
    for name in ASSERTION_PATHS[key]:
        value = getattr(value, name, None)
    return None if value is None else float(value)  # type: ignore[arg-type]


def check_assertions(summary: RunSummary, assertions: dict[str, float],
                     skip: frozenset[str] = frozenset()) -> list[AssertionResult]:
    """Each assertion against the summary, in the scenario's order; missing values fail."""
    results = []
    for key, limit in assertions.items():
        if key in skip:
            continue
        actual = assertion_value(summary, key)
        minimum = ASSERTIONS[key]
        ok = actual is not None and (actual >= limit if minimum else actual <= limit)
        results.append(AssertionResult(key, limit, actual, ok))
    return results


def session_passes(session: SessionMetrics, assertions: dict[str, float]) -> bool:
    """A session passes when the agent did not fault, every turn played and passed, and
    the scenario's assertions hold on this session alone."""
    if session.fault is not None or not all(turn.passed for turn in session.turns):
        return False
    alone = summarize([session])
    return all(r.passed for r in check_assertions(alone, assertions, RUN_LEVEL_ASSERTIONS))
