"""Scenario files: the strict schema, its error messages, and voicebench compatibility."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from speecheval.core.audio import write_wav
from speecheval.core.errors import InputError
from speecheval.session.scenario.load import load_scenario

from .helpers import voicebench_examples, write_scenario

MINIMAL = """
name: tiny
turns:
  - audio: {synth: tone, duration_ms: 300}
"""


def test_defaults_match_the_documented_ones(tmp_path: Path) -> None:
    scenario = load_scenario(write_scenario(tmp_path, MINIMAL + """
  - audio: {synth: silence}
    expect: ignore
"""))
    assert (scenario.sample_rate, scenario.frame_ms, scenario.tail_ms) == (16000, 20.0, 3000.0)
    assert scenario.max_duration_ms == 120000.0
    first, second = scenario.turns
    assert (first.id, first.start.after, first.start.delay_ms) == ("turn-1", "session_start", 500)
    assert (second.id, second.start.after, second.start.delay_ms) == (
        "turn-2", "agent_speech_end", 0)
    assert (first.expect, first.response_timeout_ms, first.max_stop_ms) == (
        "respond", 5000.0, 1000.0)
    assert second.expect == "ignore"
    assert scenario.user_vad.settings.threshold_db == -45.0
    assert scenario.agent.type == "mock"


def test_unknown_key_names_file_key_and_line(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, """
        name: typo
        turns:
          - id: one
            audio: {synth: tone}
            start: {after: session_start, dealy_ms: 100}
        """)
    with pytest.raises(InputError) as info:
        load_scenario(path)
    message = str(info.value)
    assert str(path) in message
    assert "turns[0].start.dealy_ms (line 5)" in message
    assert "unknown key" in message


@pytest.mark.parametrize(("body", "expected"), [
    ("name: x\nturns:\n  - audio: {synth: hum}\n", "turns[0].audio.synth (line 3): must be one of"),
    ("name: x\nframe_ms: fast\nturns:\n  - audio: {synth: tone}\n",
     "frame_ms (line 2): must be a number"),
    # the real clock paces frames in whole milliseconds: 12.5 ms would run as 12 ms there
    ("name: x\nframe_ms: 12.5\nturns:\n  - audio: {synth: tone}\n",
     "frame_ms (line 2): must be a whole number of milliseconds, got 12.5"),
    # 10 ms at 22050 Hz is 220.5 samples
    ("name: x\nsample_rate: 22050\nframe_ms: 10\nturns:\n  - audio: {synth: tone}\n",
     "frame_ms (line 3): 10 ms is 220.5 samples at sample_rate 22050; use a frame length "
     "that is a whole number of samples"),
    ("name: x\nsample_rate: 4000\nturns:\n  - audio: {synth: tone}\n",
     "sample_rate (line 2): must be >= 8000"),
    ("name: x\nturns:\n  - audio: {synth: tone}\n    expect: maybe\n",
     "turns[0].expect (line 4): must be one of 'respond', 'stop' or 'ignore', got 'maybe'"),
    ("name: x\nturns: []\n", "turns (line 2): must be a non-empty list"),
    ("turns:\n  - audio: {synth: tone}\n", "name (line 1): is required"),
    ("name: x\nturns:\n  - audio: {synth: tone, file: a.wav}\n",
     "turns[0].audio (line 3): set exactly one of 'file' or 'synth'"),
    ("name: x\nassert: {max_latency: 3}\nturns:\n  - audio: {synth: tone}\n",
     "assert.max_latency (line 2): unknown key"),
    ("name: x\nvad: {agent: {threshold_db: loud}}\nturns:\n  - audio: {synth: tone}\n",
     "vad.agent.threshold_db (line 2): must be a number"),
    ("name: x\nname: y\nturns:\n  - audio: {synth: tone}\n",
     "name (line 2): key 'name' appears twice (first on line 1)"),
    ("name: x\nturns:\n  - {id: a, audio: {synth: tone}}\n  - {id: a, audio: {synth: tone}}\n",
     "turns[1].id (line 4): duplicate turn id 'a' (first used on line 3)"),
    ("name: [unclosed\n", "line 2: not valid YAML"),
    # every allowed key is listed, the voicebench ones (adapter, assert, defaults) included
    ("name: x\nturnz: []\n",
     "turnz (line 2): unknown key; allowed keys are adapter, agent, assert, conditions, defaults, "
     "description, frame_ms, judge, max_duration_ms, name, sample_rate, tail_ms, turns, vad"),
    ("name: x\nturns: 3\n", "turns (line 2): must be a list, got 3"),
    ("name: x\nturns:\n  - {id: a}\n",
     "turns[0].audio (line 3): is required (a 'file' or a 'synth' signal)"),
    ("name: x\nturns:\n  - audio: {synth: tone, duration_ms: 0}\n",
     "turns[0].audio.duration_ms (line 3): must be > 0, got 0"),
    ("name: x\nturns:\n  - audio: {synth: tone}\n    seed: 1\n",
     "turns[0].seed (line 4): unknown key; allowed keys are audio, expect, id, "
     "max_stop_ms, reply, response_timeout_ms, start, text"),
    ("name: x\nvad: {user: {engine: silero, min_speech_ms: 80}}\nturns:\n"
     "  - audio: {synth: tone}\n",
     "vad.user.min_speech_ms (line 2): tunes the energy detector; it has no effect with "
     "engine: silero"),
    ("name: x\nadapter: {type: mock}\nagent: {type: mock}\nturns:\n  - audio: {synth: tone}\n",
     "agent (line 3): set either 'agent' or its voicebench name 'adapter', not both"),
])
def test_bad_values_are_named(tmp_path: Path, body: str, expected: str) -> None:
    path = write_scenario(tmp_path, body)
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert expected in str(info.value)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(("rate", "frame_ms"), [(16000, 12), (22050, 20), (44100, 30)])
def test_whole_sample_frames_are_accepted(tmp_path: Path, rate: int, frame_ms: int) -> None:
    # 12 ms * 16 = 192 samples, 20 ms * 22.05 = 441, 30 ms * 44.1 = 1323
    path = write_scenario(tmp_path, f"name: x\nsample_rate: {rate}\nframe_ms: {frame_ms}\n"
                                    "turns:\n  - audio: {synth: tone}\n")
    assert load_scenario(path).frame_ms == frame_ms


def test_missing_audio_file_is_named(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, """
        name: files
        turns:
          - audio: {file: audio/hello.wav}
        """)
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert "turns[0].audio.file (line 3)" in str(info.value)
    assert str(tmp_path / "audio" / "hello.wav") in str(info.value)


def test_missing_scenario_file() -> None:
    with pytest.raises(InputError, match="scenario is missing"):
        load_scenario("/nonexistent/scenario.yaml")


def test_voicebench_examples_validate() -> None:
    folder = voicebench_examples()
    conversation = load_scenario(folder / "mock-conversation.yaml")
    assert [t.id for t in conversation.turns] == [
        "opening", "answer-date", "barge-in", "cough", "confirm"]
    assert [t.expect for t in conversation.turns] == [
        "respond", "respond", "stop", "ignore", "respond"]
    assert conversation.turns[2].start.after == "agent_speech_start"
    assert conversation.turns[2].start.delay_ms == 900
    assert conversation.agent.options["interrupt_reaction_ms"] == 120
    assert conversation.assertions["max_barge_in_stop_ms"] == 400
    websocket = load_scenario(folder / "websocket.yaml")
    assert websocket.agent.type == "websocket"
    assert websocket.turns[1].max_stop_ms == 600
    assert websocket.turns[0].response_timeout_ms == 4000


def test_empty_blocks_mean_the_defaults_and_limits_keep_file_order(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "name: x\ndefaults:\nvad:\n"
                                    "assert: {max_wer: 0.2, max_talk_over_ms: 300}\n"
                                    "turns:\n  - audio: {synth: tone}\n    start:\n")
    scenario = load_scenario(path)
    turn = scenario.turns[0]
    # the voicebench defaults: first turn 500 ms after session_start, 5000 ms to respond
    assert (turn.start.after, turn.start.delay_ms, turn.response_timeout_ms,
            turn.max_stop_ms) == ("session_start", 500.0, 5000.0, 1000.0)
    assert scenario.user_vad.engine == scenario.agent_vad.engine == "energy"
    assert list(scenario.assertions.items()) == [("max_wer", 0.2), ("max_talk_over_ms", 300.0)]


def test_audio_files_outside_the_scenarios_folder_are_refused(tmp_path: Path) -> None:
    # each file exists and is a WAV: the old reader took it, and its bytes went into the run
    folder = tmp_path / "scenarios"
    (folder / "audio").mkdir(parents=True)
    write_wav(tmp_path / "outside.wav", np.zeros(160, np.int16), 16000)
    write_wav(folder / "audio" / "inside.wav", np.zeros(160, np.int16), 16000)
    (folder / "audio" / "link.wav").symlink_to(tmp_path / "outside.wav")
    (folder / "audio" / "alias.wav").symlink_to(folder / "audio" / "inside.wav")
    real = tmp_path.resolve()
    for written in ("../outside.wav", str(tmp_path / "outside.wav"), "audio/link.wav"):
        path = write_scenario(folder, f"name: x\nturns:\n  - audio: {{file: '{written}'}}\n")
        with pytest.raises(InputError) as info:
            load_scenario(path)
        assert str(info.value) == (
            f"{path}: turns[0].audio.file (line 3): audio file {written!r} resolves to "
            f"{real / 'outside.wav'}, outside the scenario's folder ({real / 'scenarios'}); "
            "files must lie inside it (symbolic links included)")
    # a link that stays inside the folder is fine, as in a score manifest
    path = write_scenario(folder, "name: x\nturns:\n  - audio: {file: audio/alias.wav}\n")
    assert load_scenario(path).turns[0].audio.file == folder / "audio" / "alias.wav"
