"""Summary statistics, Wilson intervals and assertions (missing values fail)."""

from __future__ import annotations

import pytest

from speecheval.session.metrics.results import SessionMetrics, TurnMetrics
from speecheval.session.metrics.summary import (
    check_assertions,
    distribution,
    session_passes,
    summarize,
)


def turn(expect: str = "respond", passed: bool = True, **values: object) -> TurnMetrics:
    base: dict[str, object] = {
        "id": "t", "expect": expect, "trigger": "session_start", "start_s": 0.5, "end_s": 2.0,
        "audio_end_s": 1.0, "user_onset_s": 0.5, "user_offset_s": 1.0, "responded": True,
        "response_latency_ms": None, "ttfa_ms": None, "talk_over": None, "stopped": None,
        "stop_ms": None, "clear_stop_ms": None, "false_barge_in": None,
        "spurious_response": None, "transcript": None, "wer": None, "passed": passed,
        "notes": ()}
    base.update(values)
    return TurnMetrics(**base)  # type: ignore[arg-type]


def not_played(expect: str) -> TurnMetrics:
    """A turn the session never reached: no window, no values (as metrics.analyze makes)."""
    return turn(expect, passed=False, trigger="not_played", start_s=None, end_s=None,
                audio_end_s=None, user_onset_s=None, user_offset_s=None, responded=None)


def session(*turns: TurnMetrics, fault: str | None = None) -> SessionMetrics:
    return SessionMetrics(turns=turns, duration_s=10.0, user_speech_ms=1000.0,
                          agent_speech_ms=2000.0, overlap_ms=50.0, talk_over_ms=20.0,
                          truncated=False, fault=fault, user_segments=(), agent_segments=(),
                          send_lateness_ms={"p50": 0.0, "p99": 0.0, "max": 0.0})


def test_distribution_uses_linear_interpolation() -> None:
    # 100, 200, 300, 1000: p50 at rank 1.5 -> 250; p90 at rank 2.7 -> 300 + 0.7 * 700 = 790
    d = distribution([1000.0, 300.0, 100.0, 200.0])
    assert d.report_dict() == {"count": 4, "min": 100.0, "p50": 250.0, "p90": pytest.approx(790.0),
                 "max": 1000.0, "mean": 400.0}
    assert distribution([]).p50 is None


def test_summary_pools_all_turns_of_all_sessions() -> None:
    one = session(turn(response_latency_ms=100.0, ttfa_ms=90.0),
                  turn("stop", stopped=True, stop_ms=300.0, clear_stop_ms=250.0),
                  turn("ignore", passed=False, false_barge_in=True, spurious_response=False))
    two = session(turn(passed=False, responded=False),
                  turn("stop", passed=False, stopped=False, stop_ms=900.0),
                  not_played("respond"), not_played("stop"), not_played("ignore"))
    summary = summarize([one, two], [True, False]).report_dict()
    assert summary["turns"]["count"] == 2 and summary["turns"]["n"] == 8
    assert summary["not_played_turns"] == 3
    assert summary["response_latency_ms"]["count"] == 1
    # the played respond turn with no reply + the respond turn that never played
    assert summary["missed_responses"] == 2
    # 1 stopped of 3 stop turns: the one that never played is in the denominator
    assert (summary["barge_in"]["count"], summary["barge_in"]["n"]) == (1, 3)
    assert summary["barge_in_stop_ms"]["max"] == 900.0
    assert summary["clear_stop_ms"]["count"] == 1
    assert summary["false_barge_ins"] == 1 and summary["noise_turns"] == 2
    assert summary["overlap_ms"] == 100.0 and summary["talk_over_ms"] == 40.0
    # Wilson 95% interval of 1 of 2: p = 0.5, z = 1.96, n = 2; p(1-p)/n = 0.125,
    # z^2/4n^2 = 3.8415/16 = 0.2401, 1 + z^2/n = 2.9207; centre (0.5 + 0.9604) / 2.9207
    # = 0.5, half = 1.96 * sqrt(0.125 + 0.2401) / 2.9207 = 0.4055 -> (0.0945, 0.9055)
    low, high = summary["session_pass"]["ci95"]
    assert (round(low, 4), round(high, 4)) == (0.0945, 0.9055)


def test_unplayed_turns_fail_missed_response_and_barge_in_assertions() -> None:
    # A run cut short by max_duration_ms: one respond turn answered, one barge-in that
    # stopped in 260 ms, then a respond and a stop turn that never played. Over all four
    # turns: missed responses 1 (the unplayed respond turn), barge-in success 1 / 2 = 0.5,
    # as voicebench 0.2.0 reports for the same turns; both assertions fail.
    truncated = session(turn(response_latency_ms=700.0),
                        turn("stop", stopped=True, stop_ms=260.0),
                        not_played("respond"), not_played("stop"))
    summary = summarize([truncated])
    reported = summary.report_dict()
    assert reported["missed_responses"] == 1 and reported["barge_in"]["rate"] == 0.5
    missed, rate = check_assertions(summary, {"max_missed_responses": 0,
                                              "min_barge_in_success_rate": 1.0})
    assert (missed.actual, missed.passed, rate.actual, rate.passed) == (1.0, False, 0.5, False)


def test_assertions_fail_on_missing_values() -> None:
    summary = summarize([session(turn(response_latency_ms=800.0))])
    results = {r.key: r for r in check_assertions(summary, {
        "p90_response_latency_ms": 1000, "max_wer": 0.5, "min_barge_in_success_rate": 1.0,
        "max_missed_responses": 0})}
    assert results["p90_response_latency_ms"].passed
    assert results["max_wer"].actual is None and not results["max_wer"].passed
    assert not results["min_barge_in_success_rate"].passed  # no barge-in turns at all
    assert results["max_missed_responses"].passed


def test_minimum_and_maximum_limits() -> None:
    summary = summarize([session(turn("stop", stopped=True, stop_ms=300.0),
                                 turn("stop", passed=False, stopped=False, stop_ms=700.0))])
    (rate, stop) = check_assertions(summary, {"min_barge_in_success_rate": 0.5,
                                              "max_barge_in_stop_ms": 600})
    assert rate.passed and rate.actual == 0.5
    assert not stop.passed and stop.actual == 700.0


def test_session_pass_needs_turns_assertions_and_no_fault() -> None:
    good = session(turn(response_latency_ms=400.0))
    assert session_passes(good, {"p50_response_latency_ms": 500})
    assert not session_passes(good, {"p50_response_latency_ms": 300})
    assert not session_passes(session(turn(passed=False)), {})
    assert not session_passes(session(turn(), fault="agent disconnected"), {})
    # the run-level pass-rate assertion is not applied to one session alone
    assert session_passes(good, {"min_session_pass_rate": 1.0})
