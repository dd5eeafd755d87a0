"""Side by side with voicebench 0.2.0 (PyPI): the same recording, the same metrics.

Each case records a session with our runner and mock, then hands the very same tracks,
turn windows, packets and transcripts to voicebench's own ``metrics.analyze``. Wherever
voicebench defines a metric the way the spec does, the two values must agree within one
analysis frame (10 ms). voicebench is a test-only dependency.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from speecheval.agents.mock import MockAgent, MockSettings
from speecheval.session.metrics.analyze import analyze
from speecheval.session.metrics.summary import summarize
from speecheval.session.record.recording import SessionRecording
from speecheval.session.run.synth import render_turns
from speecheval.session.run.virtual_runner import run_virtual
from speecheval.session.scenario.load import load_scenario
from speecheval.session.scenario.wer import wer

from .helpers import to_voicebench, voicebench_examples, write_scenario

vb_metrics = pytest.importorskip("voicebench.metrics")
vb_wer = pytest.importorskip("voicebench.wer")

FRAME_MS = 10.0

NOISY = """
name: noisy-caller
description: a talk-over, a barge-in, a cough while the agent talks and one in silence
adapter:
  type: mock
  options: {response_ms: 2000, barge_in_min_ms: 150, transcripts: ["what time do you open"]}
defaults: {response_timeout_ms: 3000, max_stop_ms: 500}
turns:
  - id: ask
    audio: {synth: speech, duration_ms: 1400}
    text: "What time do you open?"
  - id: cut
    audio: {synth: speech, duration_ms: 900, seed: 1}
    start: {after: agent_speech_start, delay_ms: 500}
    expect: stop
  - id: cough
    audio: {synth: noise, duration_ms: 200, level_db: -22}
    start: {after: agent_speech_start, delay_ms: 300}
    expect: ignore
  - id: slam
    audio: {synth: noise, duration_ms: 150, level_db: -15, seed: 2}
    start: {after: agent_speech_end, delay_ms: 800}
    expect: ignore
"""


def record(path: Path, **overrides: Any) -> SessionRecording:
    scenario = load_scenario(path)
    options = {**scenario.agent.options, **overrides}
    return run_virtual(scenario, render_turns(scenario), MockAgent(MockSettings.from_options(
        options)))


def close(ours: float | None, theirs: float | None) -> bool:
    if ours is None or theirs is None:
        return ours is None and theirs is None
    return abs(ours - theirs) <= FRAME_MS + 1e-6


def compare(path: Path, recording: SessionRecording) -> dict[str, int]:
    """Assert agreement metric by metric; return how many values of each kind were compared.

    A value both tools leave undefined (``None``) agrees but is not counted, so a test
    can say exactly which numbers were checked against voicebench.
    """
    ours = analyze(recording, load_scenario(path))
    theirs = vb_metrics.analyze(to_voicebench(recording, path))
    compared = dict.fromkeys(("session", "onset", "offset", "latency", "ttfa", "stop"), 0)
    for name in ("user_speech_ms", "agent_speech_ms", "overlap_ms", "talk_over_ms"):
        assert close(getattr(ours, name), getattr(theirs, name)), name
        compared["session"] += 1
    assert ours.truncated == theirs.truncated
    assert len(ours.turns) == len(theirs.turns)
    for mine, other in zip(ours.turns, theirs.turns, strict=True):
        where = f"{path.name} turn {mine.id}"
        assert mine.id == other.id
        pairs = {"onset": (mine.user_onset_s, other.user_onset_s),
                 "offset": (mine.user_offset_s, other.user_offset_s)}
        for kind, (a, b) in pairs.items():
            assert close(None if a is None else a * 1000, None if b is None else b * 1000), where
            compared[kind] += a is not None
        pairs = {"latency": (mine.response_latency_ms, other.response_latency_ms),
                 "ttfa": (mine.ttfa_ms, other.ttfa_ms),
                 "stop": (mine.stop_ms, other.stop_latency_ms)}
        for kind, (a, b) in pairs.items():
            assert close(a, b), (where, a, b)
            compared[kind] += a is not None
        if mine.expect == "ignore" and mine.user_onset_s is not None:
            assert mine.false_barge_in == other.false_barge_in, where
            assert mine.spurious_response == other.spurious_response, where
        if mine.expect == "respond" and mine.user_onset_s is not None:
            assert bool(mine.talk_over) == other.talk_over, where
            assert mine.responded == other.responded, where
        if mine.expect == "stop" and mine.stopped is not None:
            assert mine.stopped == other.stopped, where
        assert (mine.wer is None) == (other.wer is None), where
        if mine.wer is not None:
            assert mine.wer == pytest.approx(other.wer, abs=1e-4)
        assert mine.passed == other.passed, where
    return compared


def counts(turns: int, latency: int, stop: int, ttfa: int | None = None) -> dict[str, int]:
    """Expected compared values: 4 session totals, an onset and an offset per played turn."""
    return {"session": 4, "onset": turns, "offset": turns, "latency": latency,
            "ttfa": latency if ttfa is None else ttfa, "stop": stop}


# mock-conversation.yaml: five turns, all played; the three respond turns and the barge-in
# (whose reply is timed too) have a reply latency and time to first audio, the cough
# (ignore) has none, and the barge-in has a stop time. Not interruptible, the mock keeps
# talking through the barge-in (stop 1.6 s) and starts no new reply within its window.
@pytest.mark.parametrize(("overrides", "expected"), [
    ({}, counts(5, latency=4, stop=1)),
    ({"interruptible": False}, counts(5, latency=3, stop=1)),
    ({"response_delay_ms": 900, "jitter_ms": 0}, counts(5, latency=4, stop=1)),
])
def test_agreement_on_voicebench_example(overrides: dict[str, Any],
                                         expected: dict[str, int]) -> None:
    path = voicebench_examples() / "mock-conversation.yaml"
    assert compare(path, record(path, **overrides)) == expected


# NOISY: four turns; "ask" (respond) and "cut" (the barge-in's reply) have latencies and
# TTFA, "cut" a stop time, the two noise turns neither. With talk_over_ms the reply to
# "ask" starts before the user finished: a latency (negative) but no TTFA.
@pytest.mark.parametrize(("overrides", "expected"), [
    ({}, counts(4, latency=2, stop=1)),
    ({"talk_over_ms": 700}, counts(4, latency=2, stop=1, ttfa=1)),
    ({"lead_in_ms": 240, "packet_ms": 120}, counts(4, latency=2, stop=1)),
    ({"min_turn_ms": 400, "barge_in_min_ms": 400}, counts(4, latency=2, stop=1)),
])
def test_agreement_on_talk_over_barge_in_and_noise(tmp_path: Path, overrides: dict[str, Any],
                                                   expected: dict[str, int]) -> None:
    path = write_scenario(tmp_path, NOISY)
    assert compare(path, record(path, **overrides)) == expected


def test_agreement_on_a_truncated_session(tmp_path: Path) -> None:
    # cut at 4 s: "ask" and "cut" played (the barge-in's stop is measured, its reply is not
    # heard before the end), "cough" and "slam" never played: no onsets for them
    path = write_scenario(tmp_path, NOISY.replace("name: noisy-caller",
                                                  "name: cut-short\nmax_duration_ms: 4000"))
    recording = record(path)
    assert any(event.type == "truncated" for event in recording.events)
    assert compare(path, recording) == counts(2, latency=1, stop=1)


# A run cut short. "ask" plays 0.5-1.1 s; the mock answers at 1.1 + 0.3 (endpoint) + 0.4
# (delay) = 1.8 s; "cut" plays 2.1-2.7 s and the agent stops at 2.36 s. Its next reply
# would start at 2.7 + 0.3 + 0.4 = 3.4 s, so no agent speech ends after "cut" before
# max_duration_ms 3000: "ask2" (anchored on that end) never starts, nor does "cut2".
CUT_SHORT = """
name: cut-short-tones
max_duration_ms: 3000
adapter: {type: mock, options: {response_ms: 1500}}
turns:
  - id: ask
    audio: {synth: tone, duration_ms: 600}
  - id: cut
    audio: {synth: tone, duration_ms: 600}
    start: {after: agent_speech_start, delay_ms: 300}
    expect: stop
  - id: ask2
    audio: {synth: tone, duration_ms: 600}
    start: {after: agent_speech_end, delay_ms: 500}
  - id: cut2
    audio: {synth: tone, duration_ms: 600}
    start: {after: agent_speech_start, delay_ms: 300}
    expect: stop
"""


def test_summary_counts_unplayed_turns_like_voicebench(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, CUT_SHORT)
    scenario = load_scenario(path)
    recording = run_virtual(scenario, render_turns(scenario), MockAgent(
        MockSettings.from_options(dict(scenario.agent.options))))
    ours = summarize([analyze(recording, scenario)]).report_dict()
    theirs = vb_metrics.summarize([vb_metrics.analyze(to_voicebench(recording, path))])
    # ask answered, ask2 never played: 1 missed response of 2; cut stopped in time,
    # cut2 never played: 1 successful barge-in of 2 = 0.5
    assert ours["not_played_turns"] == 2
    assert (ours["missed_responses"], theirs["missed_responses"]) == (1, 1)
    assert (ours["barge_in"]["rate"], theirs["barge_in_success_rate"]) == (0.5, 0.5)
    assert ours["barge_in"]["n"] == theirs["barge_in_turns"] == 2
    assert ours["talk_overs"] == theirs["talk_overs"]


@pytest.mark.parametrize(("reference", "hypothesis", "expected"), [
    # quotation marks and a plural possessive are not part of the word: 0 edits in 3 words
    ("say 'yes' please", "say yes please", 0.0),
    ("the dogs' bowl", "the dogs bowl", 0.0),
    # inner apostrophes stay: "it's" vs "its" is 1 substitution in 3 words
    ("it's my turn", "its my turn", 1 / 3),
    # a lone apostrophe is no word: reference "rock n roll" (3 words), 0 edits
    ("rock ' n ' roll", "Rock n' roll!", 0.0),
    # words: ten, o'clock, she, said (the lone quote is dropped): 1 substitution (ten ->
    # then) + 1 deletion (o'clock) in 4 words
    ("'Ten o'clock,' she said", "then she said", 2 / 4),
])
def test_wer_agrees_with_voicebench(reference: str, hypothesis: str, expected: float) -> None:
    assert wer(reference, hypothesis) == pytest.approx(expected)
    assert wer(reference, hypothesis) == pytest.approx(vb_wer.wer(reference, hypothesis))
