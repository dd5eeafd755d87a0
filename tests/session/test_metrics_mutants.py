"""Cases added for mutants of ``session/metrics.py`` that the metric tests let survive
(docs/testing.md, "Surviving mutants")."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from speecheval.asr.base import TimedWord
from speecheval.core.timeline import Span, Spans
from speecheval.session.metrics import analyze as metrics
from speecheval.session.metrics.analyze import analyze
from speecheval.session.metrics.results import (
    ConditionFindings,
    JudgeLedger,
    SelfInterruption,
    SessionMetrics,
    TaskVerdict,
)

from .test_metrics import RESPOND, packets, record, scenario, turn


def session(**optional: object) -> SessionMetrics:
    return SessionMetrics(
        turns=(), duration_s=10.0, user_speech_ms=1000.0, agent_speech_ms=2000.0,
        overlap_ms=50.0, talk_over_ms=20.0, truncated=False, fault=None,
        user_segments=(Span(1_000_000, 2_500_000),), agent_segments=(),
        send_lateness_ms={"p50": 1.0, "p99": 2.0, "max": 3.0},
        **optional)  # type: ignore[arg-type]


def test_the_report_entry_has_conditions_and_task_only_when_set() -> None:
    bare = session().report_dict()
    assert "conditions" not in bare and "task" not in bare
    # segments in seconds: [1_000_000, 2_500_000) us -> [1.0, 2.5]
    assert bare["user_segments"] == [[1.0, 2.5]] and bare["agent_segments"] == []
    conditions = ConditionFindings((SelfInterruption(1.5, "ask"),))
    task = TaskVerdict(model="m", model_reported="m-1", success=True, reason="done",
                       problem=None, attempts=2,
                       ledger=JudgeLedger({"model": "m"}, [{"role": "user"}], "{}", ""))
    full = session(conditions=conditions, task=task).report_dict()
    assert full["conditions"] == {"self_interruptions": [{"t_s": 1.5, "turn": "ask"}]}
    # the ledger goes to judge.json: every other key of the verdict stays, exactly
    assert full["task"] == {"model": "m", "model_reported": "m-1", "success": True,
                            "reason": "done", "problem": None, "attempts": 2}
    assert sorted(full) == sorted([*bare, "conditions", "task"])


def test_agent_words_are_heard_only_when_a_reply_is_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Whisper stands in as a recorder: it is asked for the agent track at the recording's
    # rate only when a turn checks its reply (or a judge reads the words), and what it
    # "heard" is what the reply check reads.
    calls: list[tuple[object, int]] = []

    def heard(agent: object, rate: int) -> list[TimedWord]:
        calls.append((agent, rate))
        return [TimedWord("help", 2.1, 2.3), TimedWord("you", 2.3, 2.5)]

    monkeypatch.setattr(metrics, "agent_words", heard)
    events = [turn(0, 0.5, 1.5)] + packets(2.0, 3.0)
    recording = record([(0.5, 1.5)], [(2.0, 3.0)], events)
    (tmp_path / "plain").mkdir()
    (tmp_path / "checked").mkdir()
    plain = analyze(recording, scenario(tmp_path / "plain", RESPOND))
    assert calls == [] and plain.turns[0].reply is None and plain.turns[0].passed
    checked = analyze(recording, scenario(
        tmp_path / "checked",
        "  - {id: t0, audio: {synth: tone}, reply: {says_any: [help you]}}\n"))
    assert len(calls) == 1 and calls[0][0] is recording.agent and calls[0][1] == 16000
    # the window of turn t0 is [0.5 s, 4.0 s): both words start inside it
    (t,) = checked.turns
    assert t.reply is not None and dataclasses.asdict(t.reply) == {
        "transcript": "help you", "wer": None, "checks": {"says_any": True}}
    assert t.passed


def test_ttfa_floor_is_an_earlier_segment_ending_exactly_at_the_reply(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A detector may split speech with no gap (Silero cuts speech longer than max_speech_s
    # where it finds no silence): agent segments [0.0, 1.7) and [1.7, 3.0) s, user speech
    # [0.5, 1.5) s. The reply is the segment starting after the onset, at 1.7 s: latency
    # 1.7 - 1.5 = 200 ms. Packets arrive every 20 ms from 0.0 s; those before 1.7 s belong
    # to the earlier segment, which ends at the reply's start, so the first packet of the
    # reply is the one at 1.7 s: TTFA 200 ms too (counting from the offset would give 0).
    user = Spans.from_seconds([0.5], [1.5])
    agent = Spans.from_seconds([0.0, 1.7], [1.7, 3.0])
    recording = record([(0.5, 1.5)], [(0.0, 3.0)], [turn(0, 0.5, 1.5)] + packets(0.0, 3.0))

    def segments(samples: object, rate: int, vad: object) -> Spans:
        return agent if samples is recording.agent else user

    monkeypatch.setattr(metrics, "track_speech", segments)
    (t,) = analyze(recording, scenario(tmp_path, RESPOND)).turns
    assert t.response_latency_ms == 200.0 and t.ttfa_ms == 200.0 and t.talk_over is False


def test_the_judge_reads_the_checked_turns_and_the_agent_words(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The judge (a chat server in test_task_judge.py) stands in as a recorder here: it gets
    # the scenario's judge spec, the scenario, the turns as reported and the agent's words,
    # and its verdict is the session's ``task`` entry as returned.
    words = [TimedWord("booked", 2.1, 2.4)]
    asked: list[tuple[object, ...]] = []

    def judge(spec: object, scenario: object, turns: object,
              heard: object) -> dict[str, object]:
        asked.append((spec, scenario, turns, heard))
        return {"model": "m", "success": True, "ledger": {"messages": []}}

    monkeypatch.setattr(metrics, "agent_words", lambda agent, rate: words)
    monkeypatch.setattr(metrics, "judge_session", judge)
    judged = scenario(tmp_path, RESPOND, extra=(
        "judge: {task: book a table, model: m, base_url: 'http://127.0.0.1:9/v1'}\n"))
    events = [turn(0, 0.5, 1.5)] + packets(2.0, 3.0)
    result = analyze(record([(0.5, 1.5)], [(2.0, 3.0)], events), judged)
    assert len(asked) == 1
    spec, seen_scenario, turns, heard = asked[0]
    assert spec is judged.judge and seen_scenario is judged
    assert turns == result.turns and heard is words
    assert result.task == {"model": "m", "success": True, "ledger": {"messages": []}}
