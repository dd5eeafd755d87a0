"""``report.voicebench.json``: the run in voicebench 0.2.0's report schema.

CI scripts written for voicebench read ``summary.barge_in_success_rate``,
``sessions[].turns[].stop_latency_ms`` or ``trigger == "anchor"``; speecheval's own
``report.json`` names these differently (and carries more). This writer restates the
measurements of a run in voicebench's names, shapes and rounding (times in ms to 0.1,
seconds and rates to 4 decimals), and derives the summary and the assertion verdicts
from those rounded values, as voicebench does, so that on the same recording the file
equals what voicebench's own analysis writes, field by field
(``tests/session/test_report_voicebench.py``).

What is not voicebench's: ``created_at`` is null (speecheval's reports carry no
timestamps, so the same inputs give the same bytes); ``notes`` are speecheval's wording;
``adapter`` holds the agent's type (and the mock's settings), never transport options;
assertion keys that only speecheval has are checked the same way. Where the two tools
define a value differently, the value is speecheval's: a barge-in whose agent segment was
still open when the recording ended has no ``stop_latency_ms`` here (voicebench reports
the time to the segment's last active frame).
"""

from __future__ import annotations

import platform
from typing import Any

import numpy as np

from ... import __version__
from ...core.share import fraction
from ...core.timeline import Span
from ..metrics.evaluate import RunResult
from ..metrics.results import SessionMetrics, TurnMetrics
from ..metrics.summary import ASSERTION_PATHS, RUN_LEVEL_ASSERTIONS, assertion_value
from ..record import events as ev
from ..scenario.model import AGENT_ALIASES, ASSERTIONS, MOCK

REPORT_VOICEBENCH = "report.voicebench.json"
VOICEBENCH_VERSION = "0.2.0"
SCHEMA_VERSION = 1
# voicebench reports a turn started by any anchor as "anchor".
TRIGGER_ANCHOR = "anchor"
_VOICEBENCH_AGENT_NAMES = {ours: theirs for theirs, ours in AGENT_ALIASES.items()}


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _s(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _trigger(trigger: str) -> str:
    if trigger in (ev.TRIGGER_TIMEOUT, ev.TRIGGER_NOT_PLAYED):
        return trigger
    return TRIGGER_ANCHOR


def _turn(turn: TurnMetrics, duration_s: float) -> dict[str, Any]:
    """One turn as voicebench's ``TurnResult``; a turn that never played starts and ends
    at the end of the session, as voicebench places it."""
    played = turn.start_s is not None
    return {
        "id": turn.id,
        "expect": turn.expect,
        "trigger": _trigger(turn.trigger),
        "start_s": _s(turn.start_s) if played else duration_s,
        "end_s": _s(turn.audio_end_s) if played else duration_s,
        "user_onset_s": _s(turn.user_onset_s),
        "user_offset_s": _s(turn.user_offset_s),
        "responded": turn.responded,
        "response_latency_ms": _ms(turn.response_latency_ms),
        "ttfa_ms": _ms(turn.ttfa_ms),
        "talk_over": bool(turn.talk_over),
        "stopped": turn.stopped,
        "stop_latency_ms": _ms(turn.stop_ms),
        "false_barge_in": turn.false_barge_in,
        "spurious_response": turn.spurious_response,
        "transcript": turn.transcript,
        "wer": None if turn.wer is None else round(turn.wer, 4),
        "passed": turn.passed,
        "notes": list(turn.notes),
    }


def _segments(spans: tuple[Span, ...]) -> list[list[float]]:
    return [[round(span.start_s, 4), round(span.end_s, 4)] for span in spans]


def _session(metrics: SessionMetrics, duration_s: float) -> dict[str, Any]:
    return {
        "turns": [_turn(turn, duration_s) for turn in metrics.turns],
        "duration_s": round(duration_s, 4),
        "user_speech_ms": round(metrics.user_speech_ms, 1),
        "agent_speech_ms": round(metrics.agent_speech_ms, 1),
        "overlap_ms": round(metrics.overlap_ms, 1),
        "talk_over_ms": round(metrics.talk_over_ms, 1),
        "user_segments": _segments(metrics.user_segments),
        "agent_segments": _segments(metrics.agent_segments),
        "truncated": metrics.truncated,
    }


def _stats(values: list[float]) -> dict[str, float | int | None]:
    """count, min, p50, p90, max, mean of values already rounded to 0.1 ms."""
    if not values:
        return {"count": 0, "min": None, "p50": None, "p90": None, "max": None, "mean": None}
    array = np.asarray(values, dtype=np.float64)
    return {"count": len(values), "min": round(min(values), 1),
            "p50": round(float(np.percentile(array, 50)), 1),
            "p90": round(float(np.percentile(array, 90)), 1),
            "max": round(max(values), 1), "mean": round(float(np.mean(array)), 1)}


def _summary(sessions: list[dict[str, Any]]) -> dict[str, Any]:
    """voicebench's summary, computed from the rounded per-turn values."""
    turns = [turn for session in sessions for turn in session["turns"]]
    respond = [t for t in turns if t["expect"] == "respond"]
    stops = [t for t in turns if t["expect"] == "stop"]
    noise = [t for t in turns if t["expect"] == "ignore"]

    def values(group: list[dict[str, Any]], key: str) -> list[float]:
        return [t[key] for t in group if t[key] is not None]

    wers = values(turns, "wer")
    return {
        "sessions": len(sessions),
        "turns": len(turns),
        "turns_passed": sum(t["passed"] for t in turns),
        "response_latency_ms": _stats(values(respond, "response_latency_ms")),
        "ttfa_ms": _stats(values(respond, "ttfa_ms")),
        "missed_responses": sum(not t["responded"] for t in respond),
        "talk_overs": sum(t["talk_over"] for t in respond),
        "barge_in_turns": len(stops),
        "barge_in_success_rate": _s(fraction(sum(bool(t["stopped"]) for t in stops),
                                             len(stops))),
        "barge_in_stop_ms": _stats(values(stops, "stop_latency_ms")),
        "noise_turns": len(noise),
        "false_barge_ins": sum(bool(t["false_barge_in"]) for t in noise),
        "spurious_responses": sum(bool(t["spurious_response"]) for t in noise),
        "mean_wer": round(float(np.mean(wers)), 4) if wers else None,
        "overlap_ms": round(sum(s["overlap_ms"] for s in sessions), 1),
        "talk_over_ms": round(sum(s["talk_over_ms"] for s in sessions), 1),
    }


# Where each assertion's value sits in voicebench's summary: where it sits in speecheval's
# (the same names), but for the two voicebench names differently. The keys that
# voicebench's summary does not hold at all are read from speecheval's instead
# (RUN_LEVEL_ASSERTIONS, SPEECHEVAL_ONLY_ASSERTIONS).
VOICEBENCH_ASSERTION_PATHS = {**ASSERTION_PATHS,
                              "min_barge_in_success_rate": ("barge_in_success_rate",),
                              "max_wer": ("mean_wer",)}


def _assertion_value(summary: dict[str, Any], key: str,
                     session_pass_rate: float | None) -> float | None:
    """What an assertion limits, read from the voicebench summary (None: missing)."""
    if key in RUN_LEVEL_ASSERTIONS:  # min_session_pass_rate: speecheval's own
        return None if session_pass_rate is None else round(session_pass_rate, 4)
    value: Any = summary
    for name in VOICEBENCH_ASSERTION_PATHS[key]:
        value = value.get(name) if isinstance(value, dict) else None
    return None if value is None else float(value)


# Assertions on what voicebench does not measure at all (conditions, the task judge):
# read from speecheval's summary.
SPEECHEVAL_ONLY_ASSERTIONS = frozenset({"max_self_interruptions", "min_task_success_rate"})


def _assertions(result: RunResult, summary: dict[str, Any]) -> list[dict[str, Any]]:
    passes = result.summary.session_pass
    rate = None if passes is None else passes.value
    out = []
    for key, limit in result.scenario.assertions.items():
        actual = (assertion_value(result.summary, key) if key in SPEECHEVAL_ONLY_ASSERTIONS
                  else _assertion_value(summary, key, rate))
        passed = actual is not None and (actual >= limit if ASSERTIONS[key] else actual <= limit)
        out.append({"key": key, "limit": limit, "actual": actual, "passed": passed})
    return out


def _adapter(result: RunResult) -> dict[str, Any]:
    """The agent as voicebench describes an adapter: its type, and the mock's settings."""
    if result.agent == MOCK and result.agent_settings is not None:
        return {"type": MOCK, "config": result.agent_settings.model_dump()}
    return {"type": _VOICEBENCH_AGENT_NAMES.get(result.agent, result.agent)}


def build_voicebench_report(result: RunResult) -> dict[str, Any]:
    """The run as voicebench 0.2.0's ``report.json`` (JSON-ready)."""
    scenario = result.scenario
    sessions = [_session(metrics, recording.user.size / recording.sample_rate)
                for metrics, recording in zip(result.sessions, result.recordings, strict=True)]
    summary = _summary(sessions)
    assertions = _assertions(result, summary)
    return {
        "schema_version": SCHEMA_VERSION,
        "voicebench_version": VOICEBENCH_VERSION,
        "created_at": None,
        "python": platform.python_version(),
        "generator": {"name": "speecheval", "version": __version__},
        "scenario": {"name": scenario.name, "description": scenario.description,
                     "sample_rate": scenario.sample_rate, "frame_ms": scenario.frame_ms,
                     "turns": len(scenario.turns)},
        "adapter": _adapter(result),
        "clock": result.clock,
        "summary": summary,
        "assertions": assertions,
        "passed": all(a["passed"] for a in assertions),
        "sessions": sessions,
    }
