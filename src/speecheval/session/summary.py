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

from ..core.share import Share
from ..core.stats import linear_percentile
from .metrics import SessionMetrics, TurnMetrics
from .scenario import ASSERTIONS

# Assertions about the run as a whole, which one session alone cannot be judged on.
RUN_LEVEL_ASSERTIONS = frozenset({"min_session_pass_rate"})


def distribution(values: list[float]) -> dict[str, float | int | None]:
    """count, min, p50, p90, max, mean; everything but count is None when empty.

    Worked example: for 100, 200, 400 the p90 is at rank 0.9 * 2 = 1.8, between 200 and
    400: 200 + 0.8 * 200 = 360; the mean is 700 / 3.

    >>> d = distribution([400.0, 100.0, 200.0])
    >>> d["p50"], d["p90"], round(d["mean"], 3)
    (200.0, 360.0, 233.333)
    """
    if not values:
        return {"count": 0, "min": None, "p50": None, "p90": None, "max": None, "mean": None}
    array = np.asarray(values, dtype=np.float64)
    return {"count": len(values), "min": float(array.min()),
            "p50": linear_percentile(array, 50), "p90": linear_percentile(array, 90),
            "max": float(array.max()), "mean": float(array.mean())}


def _share(count: int, n: int) -> dict[str, Any]:
    """``count`` of ``n`` as a :class:`~speecheval.core.share.Share` with its Wilson
    interval, in the summary's shape (``rate`` and ``ci95``, as voicebench reads them)."""
    share = Share.wilson(count, n)
    return {"count": share.count, "n": share.n, "rate": share.value,
            "ci95": None if share.interval is None else list(share.interval)}


def _values(turns: list[TurnMetrics], key: str) -> list[float]:
    return [value for turn in turns if (value := getattr(turn, key)) is not None]


def _largest(sessions: list[SessionMetrics], key: str) -> float | None:
    """The worst session's send-lateness statistic (None on no frames)."""
    values = [v for s in sessions if (v := s.send_lateness_ms[key]) is not None]
    return max(values) if values else None


def summarize(sessions: list[SessionMetrics],
              session_passed: list[bool] | None = None) -> dict[str, Any]:
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
    summary: dict[str, Any] = {
        "sessions": len(sessions),
        "turns": _share(sum(turn.passed for turn in turns), len(turns)),
        "not_played_turns": len(turns) - len(played),
        "truncated_sessions": sum(session.truncated for session in sessions),
        "faulted_sessions": sum(session.fault is not None for session in sessions),
        "response_latency_ms": distribution(_values(respond, "response_latency_ms")),
        "ttfa_ms": distribution(_values(respond, "ttfa_ms")),
        "missed_responses": sum(turn.responded is not True for turn in respond),
        "talk_overs": sum(turn.talk_over is True for turn in respond),
        "barge_in": _share(sum(turn.stopped is True for turn in stops), len(stops)),
        "barge_in_stop_ms": distribution(_values(stops, "stop_ms")),
        "clear_stop_ms": distribution(_values(stops, "clear_stop_ms")),
        "noise_turns": len(noise),
        "false_barge_ins": sum(turn.false_barge_in is True for turn in noise),
        "spurious_responses": sum(turn.spurious_response is True for turn in noise),
        "wer": {"count": len(wers), "mean": float(np.mean(wers)) if wers else None},
        "overlap_ms": float(sum(session.overlap_ms for session in sessions)),
        "talk_over_ms": float(sum(session.talk_over_ms for session in sessions)),
        "send_lateness_ms": {key: _largest(sessions, key) for key in ("p99", "max")},
    }
    judged = [s.task for s in sessions if s.task is not None]
    if judged:  # only when the scenario has a judge; an invalid answer counts as a failure
        summary["task_success"] = {
            **_share(sum(t["success"] is True for t in judged), len(judged)),
            "invalid": sum(t["success"] is None for t in judged)}
    replies = [turn.reply for turn in turns if turn.reply is not None]
    if replies:  # only when the scenario checks what the agent said
        summary["reply_checks"] = _share(sum(all(r["checks"].values()) for r in replies),
                                         len(replies))
    split = [turn.latency_split for turn in respond if turn.latency_split is not None]
    if split:  # only when a transport reported server events
        summary["latency_split_ms"] = {
            part.removesuffix("_ms"): distribution([v for s in split
                                                    if (v := s[part]) is not None])
            for part in ("endpointing_ms", "decision_ms", "generation_ms", "delivery_ms")}
    conditioned = [s.conditions for s in sessions if s.conditions is not None]
    if conditioned:  # only for scenarios that declare conditions
        summary["conditions"] = {
            "self_interruptions": sum(len(c["self_interruptions"]) for c in conditioned),
            "network_affected_turns": sum(len(c["network"]["affected_turns"])
                                          for c in conditioned if "network" in c)}
    if session_passed is not None:
        summary["session_pass"] = _share(sum(session_passed), len(session_passed))
    return summary


@dataclass(frozen=True)
class AssertionResult:
    key: str
    limit: float
    actual: float | None
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "limit": self.limit, "actual": self.actual,
                "passed": self.passed}


# Where each assertion key's value sits in the summary (a path of keys). voicebench's
# report names three of them differently (report_voicebench.VOICEBENCH_ASSERTION_PATHS).
ASSERTION_PATHS: dict[str, tuple[str, ...]] = {
    "max_response_latency_ms": ("response_latency_ms", "max"),
    "p50_response_latency_ms": ("response_latency_ms", "p50"),
    "p90_response_latency_ms": ("response_latency_ms", "p90"),
    "p50_ttfa_ms": ("ttfa_ms", "p50"),
    "p90_ttfa_ms": ("ttfa_ms", "p90"),
    "max_barge_in_stop_ms": ("barge_in_stop_ms", "max"),
    "min_barge_in_success_rate": ("barge_in", "rate"),
    "max_false_barge_ins": ("false_barge_ins",),
    "max_spurious_responses": ("spurious_responses",),
    "max_missed_responses": ("missed_responses",),
    "max_talk_over_ms": ("talk_over_ms",),
    "max_wer": ("wer", "mean"),
    "min_session_pass_rate": ("session_pass", "rate"),
    "max_self_interruptions": ("conditions", "self_interruptions"),
    "min_task_success_rate": ("task_success", "rate"),
}


def assertion_value(summary: dict[str, Any], key: str,
                    paths: dict[str, tuple[str, ...]] = ASSERTION_PATHS) -> float | None:
    """The summary value an assertion key limits (None when it does not exist)."""
    value: Any = summary
    for name in paths[key]:
        value = value.get(name) if isinstance(value, dict) else None
    return None if value is None else float(value)


def check_assertions(summary: dict[str, Any], assertions: dict[str, float],
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
