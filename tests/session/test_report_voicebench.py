"""``report.voicebench.json`` against voicebench 0.2.0's own report on the same recording.

Each case runs ``speecheval session run``, reads back the tracks and event logs it wrote,
hands them to voicebench's ``metrics.analyze``, ``summarize``, ``check_assertions`` and
``report.build_report``, and compares the two documents field by field. Left out of the
comparison, because they are not measurements: ``created_at`` (null in ours: no
timestamps), ``python``, ``adapter`` (checked on its own), ``generator`` (ours only) and
each turn's free-text ``notes``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from speecheval.cli import main
from speecheval.core.audio import read_mono
from speecheval.session.record.events import events_from_dicts
from speecheval.session.record.recording import SessionRecording

from .helpers import to_voicebench, voicebench_examples, write_scenario

vb_metrics = pytest.importorskip("voicebench.metrics")
vb_report = pytest.importorskip("voicebench.report")
vb_adapters = pytest.importorskip("voicebench.adapters")

NOT_MEASUREMENTS = ("created_at", "python", "adapter", "generator")

# A talk-over ("ask" is answered 700 ms after the user's onset, before they finished), a
# barge-in, a cough over the agent and a slam in silence.
NOISY = """
name: noisy-caller
adapter:
  type: mock
  options: {response_ms: 2000, barge_in_min_ms: 150, talk_over_ms: 700,
            transcripts: ["what time do you open", "no wait"]}
defaults: {response_timeout_ms: 3000, max_stop_ms: 500}
turns:
  - id: ask
    audio: {synth: speech, duration_ms: 1400}
    text: "What time do you open?"
  - id: cut
    audio: {synth: speech, duration_ms: 900, seed: 1}
    start: {after: agent_speech_start, delay_ms: 500}
    expect: stop
    text: "No, wait."
  - id: cough
    audio: {synth: noise, duration_ms: 200, level_db: -22}
    start: {after: agent_speech_start, delay_ms: 300}
    expect: ignore
  - id: slam
    audio: {synth: noise, duration_ms: 150, level_db: -15, seed: 2}
    start: {after: agent_speech_end, delay_ms: 800}
    expect: ignore
assert:
  p50_response_latency_ms: 500
  max_barge_in_stop_ms: 400
  min_barge_in_success_rate: 1.0
  max_false_barge_ins: 0
  max_missed_responses: 0
  max_wer: 0.2
"""

# The agent hears nothing (silence), so "reply" never gets its anchor and starts on its
# 800 ms timeout; the session is cut at 3 s, so "later" never plays.
TIMEOUT_AND_CUT = """
name: timeout-and-cut
max_duration_ms: 3000
turns:
  - id: hush
    audio: {synth: silence, duration_ms: 400}
  - id: reply
    audio: {synth: speech, duration_ms: 600}
    start: {after: agent_speech_end, timeout_ms: 800}
  - id: later
    audio: {synth: speech, duration_ms: 600}
    start: {after: agent_speech_end, delay_ms: 5000}
    expect: stop
assert:
  max_missed_responses: 0
"""


def read_run(out: Path) -> list[SessionRecording]:
    """The sessions of a run directory as recordings, from the files written."""
    recordings = []
    for folder in sorted((out / "sessions").iterdir()):
        user = read_mono(folder / "user.wav")
        agent = read_mono(folder / "agent.wav")
        events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
        fault = next((e["reason"] for e in events if e["type"] == "fault"), None)
        recordings.append(SessionRecording(
            sample_rate=user.rate, events=events_from_dicts(events), fault=fault,
            user=np.round(user.samples * 32768).astype(np.int16),
            agent=np.round(agent.samples * 32768).astype(np.int16)))
    return recordings


def voicebench_report(out: Path, scenario: Path, clock: str) -> dict[str, Any]:
    """voicebench's report.json for the recordings in run directory ``out``."""
    records = [to_voicebench(rec, scenario, clock) for rec in read_run(out)]
    sessions = [vb_metrics.analyze(record) for record in records]
    summary = vb_metrics.summarize(sessions)
    assertions = vb_metrics.check_assertions(summary, records[0].scenario.assertions)
    report = vb_report.build_report(records, sessions, summary, assertions)
    return dict(json.loads(json.dumps(report)))


def measurements(report: dict[str, Any]) -> dict[str, Any]:
    kept = {key: value for key, value in report.items() if key not in NOT_MEASUREMENTS}
    for session in kept["sessions"]:
        for turn in session["turns"]:
            del turn["notes"]
    return kept


def differences(ours: Any, theirs: Any, where: str = "") -> list[str]:
    """Every path at which the two JSON documents differ, with both values."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        out = [f"{where}.{key}: missing in {'ours' if key in theirs else 'voicebench'}"
               for key in sorted(set(ours) ^ set(theirs))]
        for key in sorted(set(ours) & set(theirs)):
            out += differences(ours[key], theirs[key], f"{where}.{key}")
        return out
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [d for k, (a, b) in enumerate(zip(ours, theirs, strict=True))
                for d in differences(a, b, f"{where}[{k}]")]
    if type(ours) is not type(theirs) or ours != theirs:
        return [f"{where}: ours {ours!r}, voicebench {theirs!r}"]
    return []


def run_and_compare(scenario: Path, out: Path, *args: str, clock: str = "virtual",
                    expect_code: int | None = None) -> dict[str, Any]:
    code = main(["session", "run", str(scenario), "--out", str(out), *args])
    assert code in ((0, 1) if expect_code is None else (expect_code,))
    ours = json.loads((out / "report.voicebench.json").read_text())
    theirs = voicebench_report(out, scenario, clock)
    assert differences(measurements(ours), measurements(theirs)) == []
    # the verdict in the file is the run's verdict
    assert ours["passed"] == (code == 0)
    assert ours["created_at"] is None and ours["voicebench_version"] == "0.2.0"
    return dict(ours)


def test_voicebench_example_two_sessions(tmp_path: Path) -> None:
    scenario = voicebench_examples() / "mock-conversation.yaml"
    ours = run_and_compare(scenario, tmp_path / "run", "-n", "2")
    summary = ours["summary"]
    # five turns in each of two sessions; one barge-in and one cough per session
    assert (summary["sessions"], summary["turns"]) == (2, 10)
    assert (summary["barge_in_turns"], summary["noise_turns"]) == (2, 2)
    assert summary["barge_in_stop_ms"]["count"] == 2
    assert [t["trigger"] for t in ours["sessions"][0]["turns"]] == ["anchor"] * 5
    # the adapter block: voicebench's own mock describes the same settings
    theirs = vb_adapters.create_adapter("mock", dict(
        __import__("voicebench.scenario", fromlist=["x"]).load_scenario(scenario)
        .adapter.options)).describe()
    assert ours["adapter"]["type"] == theirs["type"] == "mock"
    shared = json.loads(json.dumps(theirs["config"]))
    assert {key: ours["adapter"]["config"][key] for key in shared} == shared


def test_talk_over_barge_in_and_noise(tmp_path: Path) -> None:
    ours = run_and_compare(write_scenario(tmp_path, NOISY), tmp_path / "run", expect_code=1)
    ask, cut, cough, slam = ours["sessions"][0]["turns"]
    # the mock starts talking 700 ms after the user's onset at 0.5 s; the user stops at 1.9
    assert ask["talk_over"] is True and ask["response_latency_ms"] == -700.0
    assert cut["stopped"] is True and cut["stop_latency_ms"] == 320.0
    # this mock treats every sound as a turn, so it stops for the noises too
    assert cough["false_barge_in"] is True and slam["false_barge_in"] is True
    # both transcripts land in the first window: "what time do you open no wait" against
    # "What time do you open?" is 2 insertions in 5 words
    assert ask["wer"] == 0.4 and cut["transcript"] is None
    assert [(a["key"], a["passed"]) for a in ours["assertions"]] == [
        ("p50_response_latency_ms", True), ("max_barge_in_stop_ms", True),
        ("min_barge_in_success_rate", True), ("max_false_barge_ins", False),
        ("max_missed_responses", True), ("max_wer", False)]


def test_an_agent_that_does_not_stop(tmp_path: Path) -> None:
    ours = run_and_compare(write_scenario(tmp_path, NOISY), tmp_path / "run",
                           "-o", "interruptible=false", expect_code=1)
    assert ours["summary"]["barge_in_success_rate"] == 0.0
    assert ours["passed"] is False


def test_timeout_and_a_turn_that_never_played(tmp_path: Path) -> None:
    ours = run_and_compare(write_scenario(tmp_path, TIMEOUT_AND_CUT), tmp_path / "run",
                           expect_code=1)
    hush, reply, later = ours["sessions"][0]["turns"]
    assert (reply["trigger"], later["trigger"]) == ("timeout", "not_played")
    # a turn that never played sits at the end of the 3 s session, as voicebench puts it
    assert later["start_s"] == later["end_s"] == ours["sessions"][0]["duration_s"] == 3.0
    assert ours["sessions"][0]["truncated"] is True
    assert ours["summary"]["missed_responses"] == 2  # hush got no reply, reply neither
