"""``vad: {agent: {engine: silero}}``: agent-anchored turns start on Silero's boundaries.

The metrics find the agent's speech in the recorded track with the declared engine; the
scheduler must decide ``after: agent_speech_start`` / ``agent_speech_end`` with the same
one, or the anchors and the metrics see different speech. Each ``turn`` event records
the anchor it started from (``anchor_ms``); here it must be a boundary of the scored
agent segments, exactly, and the turn must start at the first frame at or after the
anchor plus its delay (or, when the delay is shorter than Silero needs to be sure of an
onset, as soon as it is sure).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray
from speech_engine import require_speech

from speecheval.agents.base import AgentEvent, AudioOut
from speecheval.cli import main
from speecheval.core.errors import InputError
from speecheval.core.timebase import to_us
from speecheval.session.metrics.analyze import analyze
from speecheval.session.run.synth import render_turns
from speecheval.session.run.virtual_runner import run_virtual
from speecheval.session.scenario.load import load_scenario

from .helpers import write_scenario
from .test_real_clock import serving

RATE = 16_000
FRAME_S = 0.02
# Silero keeps speech longer than 250 ms only, judged on 32 ms windows
SURE_AFTER_S = 0.25 + 2 * 0.032

SCENARIO = """
name: silero-anchors
vad:
  agent: {engine: silero}
turns:
  - id: over-greeting
    audio: {synth: speech, duration_ms: 400}
    start: {after: agent_speech_start, delay_ms: 700}
  - id: after-greeting
    audio: {synth: speech, duration_ms: 500, seed: 1}
    start: {after: agent_speech_end, delay_ms: 200}
  - id: quick
    audio: {synth: speech, duration_ms: 300, seed: 2}
    start: {after: agent_speech_start, delay_ms: 40}
"""


class TimedTalker:
    """A virtual-clock agent that says one espeak-ng sentence at fixed times, whatever it
    hears: its speech does not depend on the turns, so only the detector decides them."""

    def __init__(self, times_s: tuple[float, ...]) -> None:
        self.times_s = times_s
        self.clip: NDArray[np.int16] = np.zeros(0, dtype=np.int16)
        self.rate = 0

    def start(self, sample_rate: int) -> None:
        from speecheval.agents.local.voice import espeak_speech

        self.rate = sample_rate
        self.clip = espeak_speech("Thank you for calling, how can I help you today?",
                                  sample_rate)

    def process(self, frame: NDArray[np.int16], t_s: float) -> list[AgentEvent]:
        out: list[AgentEvent] = []
        for at in self.times_s:
            offset = round((t_s - at) * self.rate)
            if 0 <= offset < self.clip.size:
                out.append(AudioOut(self.clip[offset:offset + frame.size].tobytes()))
        return out


def turn_events(events: list[dict[str, object]]) -> list[dict[str, object]]:
    return [event for event in events if event["type"] == "turn"]


def first_frame_at_or_after(t_s: float) -> float:
    return math.ceil(t_s / FRAME_S - 1e-9) * FRAME_S


def test_anchors_are_the_scored_silero_boundaries(tmp_path: Path) -> None:
    require_speech()
    scenario = load_scenario(write_scenario(tmp_path, SCENARIO))
    recording = run_virtual(scenario, render_turns(scenario), TimedTalker((0.3, 5.0)))
    metrics = analyze(recording, scenario)
    starts = [s.start_us for s in metrics.agent_segments]
    ends = [s.end_us for s in metrics.agent_segments]
    over, after, quick = turn_events([e.report_dict() for e in recording.events])
    assert [e["trigger"] for e in (over, after, quick)] == [
        "agent_speech_start", "agent_speech_end", "agent_speech_start"]
    for event, boundaries in ((over, starts), (after, ends), (quick, starts)):
        assert to_us(float(event["anchor_ms"]) / 1000) in boundaries, event
    # the greeting's onset + 0.7 s, and its offset + 0.2 s, on the 20 ms frame grid
    assert float(over["t_ms"]) / 1000 == pytest.approx(
        first_frame_at_or_after(float(over["anchor_ms"]) / 1000 + 0.7))
    assert float(after["t_ms"]) / 1000 == pytest.approx(
        first_frame_at_or_after(float(after["anchor_ms"]) / 1000 + 0.2))
    # 40 ms is less than Silero needs to be sure of the second reply's onset: the turn
    # starts once it is sure, still anchored on that onset
    quick_anchor = float(quick["anchor_ms"]) / 1000
    assert quick_anchor >= 5.0
    assert quick_anchor + 0.04 < float(quick["t_ms"]) / 1000 <= quick_anchor + SURE_AFTER_S
    # the energy detector puts the greeting's onset elsewhere: this test can tell them apart
    energy = analyze(recording, load_scenario(write_scenario(
        tmp_path, SCENARIO.replace("{engine: silero}", "{engine: energy}"), "energy.yaml")))
    assert energy.agent_segments[0].start_us != metrics.agent_segments[0].start_us


def test_real_clock_anchor_is_the_scored_silero_onset(tmp_path: Path) -> None:
    require_speech()
    body = """
name: silero-live
tail_ms: 1500
vad:
  agent: {engine: silero}
turns:
  - id: ask
    audio: {synth: tts, say: "What time do you open tomorrow?"}
    start: {after: session_start, delay_ms: 200}
  - id: barge
    audio: {synth: tts, say: "Sorry, one more thing."}
    start: {after: agent_speech_start, delay_ms: 600, timeout_ms: 8000}
    expect: stop
"""
    out = tmp_path / "run"
    with serving() as url:  # the local agent speaks its replies with espeak-ng
        code = main(["session", "run", str(write_scenario(tmp_path, body)), "--agent",
                     "pcm-websocket", "--url", url, "--out", str(out)])
    assert code != 2, "the session was refused as bad input"
    report = json.loads((out / "report.json").read_text())
    session = report["sessions"][0]
    assert session["fault"] is None
    events = [json.loads(line) for line in
              (out / "sessions" / "001" / "events.jsonl").read_text().splitlines()]
    _, barge = turn_events(events)
    assert barge["trigger"] == "agent_speech_start"
    starts = [to_us(a) for a, _ in session["agent_segments"]]
    assert to_us(barge["anchor_ms"] / 1000) in starts
    assert barge["t_ms"] / 1000 == pytest.approx(
        first_frame_at_or_after(barge["anchor_ms"] / 1000 + 0.6))


def test_silero_anchors_at_a_rate_a_stream_cannot_follow_are_refused(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, SCENARIO.replace("name: silero-anchors",
                                                     "name: x\nsample_rate: 24000"))
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert str(info.value).startswith(
        f"{path}: vad.agent.engine (line 4): turn 'over-greeting' starts on agent speech")
    assert "not 24000 Hz" in str(info.value)
