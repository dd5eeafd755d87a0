"""``vad: {user: {engine: silero}}`` switches one track to Silero; the other stays energy."""

from __future__ import annotations

from pathlib import Path

import pytest
from speech_engine import needs_speech

from speecheval.agents.mock import MockAgent, MockSettings
from speecheval.core.errors import InputError
from speecheval.session.metrics.analyze import analyze
from speecheval.session.run.synth import render_turns
from speecheval.session.run.virtual_runner import run_virtual
from speecheval.session.scenario.load import load_scenario

from .helpers import write_scenario

pytestmark = needs_speech

BODY = """
name: silero
vad:
  user: {engine: silero}
turns:
  - audio: {synth: tts, say: "Could you book me a table for tonight?"}
"""


def test_silero_user_track_agrees_with_energy_on_clean_speech(tmp_path: Path) -> None:
    silero = load_scenario(write_scenario(tmp_path, BODY, "silero.yaml"))
    energy = load_scenario(write_scenario(tmp_path, BODY.replace(
        "  user: {engine: silero}", "  user: {engine: energy}"), "energy.yaml"))
    recording = run_virtual(energy, render_turns(energy), MockAgent(MockSettings()))
    by_silero = analyze(recording, silero)
    by_energy = analyze(recording, energy)
    (s,), (e,) = by_silero.turns, by_energy.turns
    assert s.user_onset_s is not None and e.user_onset_s is not None
    assert s.user_offset_s is not None and e.user_offset_s is not None
    # clean synthetic speech in silence: the two detectors agree within 100 ms on the
    # turn's onset and offset, and the agent track (energy in both) is identical
    assert abs(s.user_onset_s - e.user_onset_s) <= 0.1
    assert abs(s.user_offset_s - e.user_offset_s) <= 0.1
    assert by_silero.agent_segments == by_energy.agent_segments
    assert by_silero.user_segments != () and s.passed


def test_silero_rejects_energy_settings(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, BODY.replace("{engine: silero}",
                                                 "{engine: silero, threshold_db: -40}"))
    with pytest.raises(InputError, match=r"vad.user.threshold_db \(line 3\)"):
        load_scenario(path)
