"""The mock agent on the virtual clock: its knobs show up in the metrics as configured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from speech_engine import require_speech

from speecheval.agents.mock import MockAgent, MockOptionError, MockSettings
from speecheval.core.timeline import Span
from speecheval.session.metrics.analyze import analyze
from speecheval.session.metrics.evaluate import evaluate
from speecheval.session.metrics.results import SessionMetrics
from speecheval.session.run.synth import render_turns
from speecheval.session.run.virtual_runner import run_virtual
from speecheval.session.run.virtual_sessions import run_virtual_sessions
from speecheval.session.scenario.load import load_scenario
from speecheval.session.scenario.model import Scenario

from .helpers import write_scenario

# Tone turns: the user is loud from the first to the last sample, so every time is exact.
TWO_TURNS = """
name: knobs
turns:
  - id: ask
    audio: {synth: tone, duration_ms: 1000}
    start: {after: session_start, delay_ms: 500}
  - id: cut-in
    audio: {synth: tone, duration_ms: 600}
    start: {after: agent_speech_start, delay_ms: 400}
    expect: stop
    max_stop_ms: 400
"""


def session(tmp_path: Path, body: str = TWO_TURNS, **options: Any) -> SessionMetrics:
    scenario = load_scenario(write_scenario(tmp_path, body))
    agent = MockAgent(MockSettings.from_options(options))
    return analyze(run_virtual(scenario, render_turns(scenario), agent), scenario)


def test_reply_latency_and_barge_in_follow_the_knobs(tmp_path: Path) -> None:
    result = session(tmp_path, endpoint_silence_ms=300, response_delay_ms=400,
                     barge_in_min_ms=100, interrupt_reaction_ms=150, response_ms=3000)
    ask, cut_in = result.turns
    # The tone ends at 1.5 s (0.5 + 1.0; the 5 ms fade stays above the threshold).
    # The mock counts quiet frames from the 20 ms frame at 1.50 s: the 15th quiet frame
    # (1.78 s) completes 300 ms, so it plans to speak at 1.80 + 0.40 = 2.20 s:
    # response latency 2.20 - 1.50 = 700 ms, and the first packet arrives then too.
    assert (ask.user_offset_s, ask.response_latency_ms, ask.ttfa_ms) == (1.5, 700.0, 700.0)
    # The agent's onset at 2.20 s is known to the runner after 5 loud 10 ms frames; the
    # interruption starts at 2.20 + 0.40 = 2.60 s. The mock has heard 100 ms of overlap
    # in the frame at 2.68 s and plans to stop at 2.70 + 0.15 = 2.85 s, which is the frame
    # at 2.86 s (frames start every 20 ms): it sends no audio there and a clear, so the
    # stop time is 2.86 - 2.60 = 260 ms by VAD and by the clear.
    assert cut_in.user_onset_s == 2.6
    assert (cut_in.stop_ms, cut_in.clear_stop_ms, cut_in.passed) == (260.0, 260.0, True)


def test_agent_talking_at_a_ragged_max_duration_never_stopped(tmp_path: Path) -> None:
    # 25 ms scenario frames and max_duration_ms 4010: the runner stops at the first frame
    # boundary at or past 4.010 s, 161 * 25 ms = 4.025 s. The tone turn ends at 0.5 + 0.8 =
    # 1.3 s; the mock replies after 300 ms of silence + 200 ms delay, at 1.8 s, for 20 s,
    # and cannot be interrupted, so it is still talking at 4.025 s. The 10 ms detector sees
    # 402 whole frames (4.02 s) and flush closes that open segment at 4.02 s, 5 ms short
    # of the end: the barge-in at 1.8 + 0.5 = 2.3 s has no stop time and fails (it used to
    # read 4.02 - 2.3 = 1720 ms <= 5000: stopped).
    body = """
name: ragged
frame_ms: 25
max_duration_ms: 4010
turns:
  - id: ask
    audio: {synth: tone, duration_ms: 800}
  - id: cut
    audio: {synth: tone, duration_ms: 600}
    start: {after: agent_speech_start, delay_ms: 500}
    expect: stop
    max_stop_ms: 5000
"""
    result = session(tmp_path, body, response_ms=20000, interruptible=False,
                     response_delay_ms=200)
    assert result.duration_s == 4.025
    assert result.agent_segments == (Span(1_800_000, 4_020_000, open_at_end=True),)
    _, cut = result.turns
    assert (cut.user_onset_s, cut.stop_ms, cut.stopped, cut.passed) == (2.3, None, False, False)
    assert cut.notes == ("the agent never stopped before the session ended",)


def test_not_interruptible_fails_the_barge_in(tmp_path: Path) -> None:
    result = session(tmp_path, interruptible=False, response_ms=3000)
    cut_in = result.turns[1]
    # the reply runs its full 3 s (2.2-5.2 s): stop time 5.2 - 2.6 = 2600 ms > 400 ms
    assert (cut_in.stop_ms, cut_in.stopped, cut_in.passed) == (2600.0, False, False)
    assert cut_in.clear_stop_ms is None


def test_talk_over_knob(tmp_path: Path) -> None:
    body = """
        name: talk-over
        turns:
          - audio: {synth: tone, duration_ms: 1000}
        """
    (t,) = session(tmp_path, body, talk_over_ms=600).turns
    # the user speaks 0.5-1.5 s; the mock starts 600 ms after the onset: 1.1 - 1.5 = -400
    assert (t.response_latency_ms, t.talk_over, t.ttfa_ms) == (-400.0, True, None)


def test_lead_in_and_bursts_separate_ttfa_from_latency(tmp_path: Path) -> None:
    body = """
        name: lead-in
        turns:
          - audio: {synth: tone, duration_ms: 1000}
        """
    (t,) = session(tmp_path, body, lead_in_ms=200, packet_ms=100).turns
    # quiet lead-in (-60 dBFS) arrives at 2.2 s (TTFA 700 ms); speech starts 200 ms later
    assert (t.ttfa_ms, t.response_latency_ms) == (700.0, 900.0)


NOISE = """
name: noise
turns:
  - id: cough
    audio: {synth: noise, duration_ms: 200, level_db: -25}
    expect: ignore
"""


def test_noise_sensitivity_knob(tmp_path: Path) -> None:
    (t,) = session(tmp_path, NOISE).turns
    assert t.spurious_response is True and not t.passed  # it answers a 200 ms cough
    (t,) = session(tmp_path, NOISE, min_turn_ms=300).turns
    assert t.spurious_response is False and t.passed


def test_transcripts_and_determinism(tmp_path: Path) -> None:
    body = """
        name: words
        turns:
          - audio: {synth: tone, duration_ms: 800}
            text: "Book a table for two."
        """
    scenario = load_scenario(write_scenario(tmp_path, body))
    clips = render_turns(scenario)
    options = {"transcripts": ["book a table for you"], "jitter_ms": 300, "seed": 4}
    first = run_virtual(scenario, clips, MockAgent(MockSettings.from_options(options)))
    second = run_virtual(scenario, clips, MockAgent(MockSettings.from_options(options)))
    assert np.array_equal(first.agent, second.agent) and first.events == second.events
    (t,) = analyze(first, scenario).turns
    assert t.transcript == "book a table for you" and t.wer == pytest.approx(0.2)


def test_repeats_use_successive_seeds(tmp_path: Path) -> None:
    scenario = load_scenario(write_scenario(tmp_path, TWO_TURNS))
    options = {"jitter_ms": 400}

    def make(index: int) -> MockAgent:
        return MockAgent(MockSettings.from_options({**options, "seed": index}))

    result = evaluate(scenario, "mock", options, "virtual",
                      run_virtual_sessions(scenario, make, 3))
    latencies = [s.turns[0].response_latency_ms for s in result.sessions]
    assert len(set(latencies)) > 1  # the jitter differs per seed
    assert result.summary.sessions == 3
    assert result.summary.response_latency_ms.count == 3


def test_truncated_session_marks_unplayed_turns(tmp_path: Path) -> None:
    body = TWO_TURNS.replace("name: knobs", "name: short\nmax_duration_ms: 2000")
    result = session(tmp_path, body)
    assert result.truncated and result.duration_s == 2.0
    assert [t.trigger for t in result.turns] == ["session_start", "not_played"]


def test_bad_mock_options_are_named() -> None:
    with pytest.raises(MockOptionError, match="'response_dealy_ms': unknown option"):
        MockSettings.from_options({"response_dealy_ms": 3})
    with pytest.raises(MockOptionError, match="'interruptible': must be true or false"):
        MockSettings.from_options({"interruptible": "no"})
    with pytest.raises(MockOptionError, match="'transcripts': must be a list of strings"):
        MockSettings.from_options({"transcripts": "hello"})


def test_voicebench_example_runs_unchanged_with_its_documented_numbers() -> None:
    from .helpers import voicebench_examples

    require_speech()
    scenario: Scenario = load_scenario(voicebench_examples() / "mock-conversation.yaml")
    agent = MockAgent(MockSettings.from_options(scenario.agent.options))
    result = analyze(run_virtual(scenario, render_turns(scenario), agent), scenario)
    assert [t.passed for t in result.turns] == [True] * 5
    # voicebench's README prints 760 ms for the opening reply and 380 ms for the barge-in
    # stop time of this scenario on its own mock; ours, given the same knobs, lands on
    # the same numbers (the user audio differs: ours is espeak-ng speech).
    assert result.turns[0].response_latency_ms == 760.0
    assert result.turns[2].stop_ms == 380.0


def test_mock_options_are_a_schema_with_declared_types() -> None:
    # the types come from the model's fields, not from the names of their annotations or
    # from suffixes of the option names
    fields = MockSettings.model_fields
    assert set(fields) >= {"response_ms", "level_db", "seed", "talk_over_ms", "packet_ms"}
    settings = MockSettings.from_options({"response_ms": 800, "level_db": -30,
                                          "transcripts": ["a"], "talk_over_ms": None,
                                          "packet_ms": 20})
    assert (settings.response_ms, settings.level_db, settings.transcripts,
            settings.talk_over_ms, settings.packet_ms) == (800.0, -30.0, ("a",), None, 20.0)
    assert isinstance(settings.response_ms, float) and settings == MockSettings(
        response_ms=800.0, level_db=-30.0, transcripts=("a",), packet_ms=20.0)
    with pytest.raises(MockOptionError) as caught:
        MockSettings.from_options({"response_ms": 10 ** 400})  # was an OverflowError
    assert str(caught.value) == ("mock agent option 'response_ms': must be at most 3600000 ms "
                                 "(one hour), got 1000000000000000000000000000000000000000000"
                                 "00000000000000...")
    with pytest.raises(MockOptionError) as caught:
        MockSettings.from_options({"packet_ms": 0})
    assert (caught.value.key, caught.value.problem) == ("packet_ms", "must be positive, got 0")
