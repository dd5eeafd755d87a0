"""Turn audio: espeak-ng speech fitted to a declared duration, tones, noise, files."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from speecheval.core.audio import write_wav
from speecheval.core.errors import InputError
from speecheval.session import synth
from speecheval.session.scenario import load_scenario
from speecheval.vad.streaming import detect_segments

from .helpers import write_scenario

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is not installed")


def rms_db(x: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt(np.mean(np.square(x.astype(np.float64))))))


def test_tone_noise_silence(tmp_path: Path) -> None:
    scenario = load_scenario(write_scenario(tmp_path, """
        name: signals
        sample_rate: 8000
        turns:
          - audio: {synth: tone, duration_ms: 500, level_db: -20, freq_hz: 500}
          - audio: {synth: noise, duration_ms: 250, level_db: -30, seed: 3}
          - audio: {synth: silence, duration_ms: 125}
        """))
    tone, noise, silence = synth.render_turns(scenario)
    assert tone.size == 4000 and noise.size == 2000 and silence.size == 1000  # ms * 8 kHz
    # the 5 ms fades (40 samples at each end) lower the RMS by a hair only
    assert rms_db(tone[40:-40]) == pytest.approx(-20.0, abs=0.01)
    assert rms_db(noise) == pytest.approx(-30.0, abs=0.3)
    assert not silence.any()
    again = synth.render_turns(scenario)
    assert all(np.array_equal(a, b) for a, b in zip(again, [tone, noise, silence], strict=True))


def test_wav_file_is_resampled_to_the_session_rate(tmp_path: Path) -> None:
    write_wav(tmp_path / "clip.wav", np.full(4800, 0.25, dtype=np.float32), 48000)
    scenario = load_scenario(write_scenario(tmp_path, """
        name: file
        turns:
          - audio: {file: clip.wav}
        """))
    (clip,) = synth.render_turns(scenario)
    assert clip.size == 1600  # 0.1 s at 16 kHz


def test_stereo_file_is_refused_naming_scenario_turn_line_and_file(tmp_path: Path) -> None:
    write_wav(tmp_path / "stereo.wav", np.zeros((100, 2), dtype=np.float32), 16000)
    path = write_scenario(tmp_path, """
        name: file
        turns:
          - id: greet
            audio: {synth: tone}
          - id: hello
            audio: {file: stereo.wav}
        """)
    with pytest.raises(InputError) as info:
        synth.render_turns(load_scenario(path))
    # the second turn's entry starts on line 5 of the file
    assert str(info.value) == (f"{path}: turns[1] (id 'hello', line 5): audio file "
                               f"{tmp_path / 'stereo.wav'}: expected mono audio, found 2 "
                               "channels")


@needs_espeak
def test_speech_is_fitted_to_its_declared_duration(tmp_path: Path) -> None:
    scenario = load_scenario(write_scenario(tmp_path, """
        name: speech
        turns:
          - audio: {synth: speech, duration_ms: 1500}
            text: "It's for next Tuesday."
          - audio: {synth: speech, say: "It's for next Tuesday.", level_db: -26}
        """))
    fitted, natural = synth.render_turns(scenario)
    assert fitted.size == 24000  # exactly 1500 ms at 16 kHz
    segments = detect_segments(fitted, 16000)
    assert segments and segments[0].start_s < 0.1
    # the speaking rate was chosen so the speech fills most of the declared time
    assert segments[-1].end_s > 1.0
    assert rms_db(natural) == pytest.approx(-26.0, abs=0.01)


def test_missing_espeak_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    synth._espeak_cached.cache_clear()
    scenario = load_scenario(write_scenario(tmp_path, """
        name: speech
        turns:
          - id: hello
            audio: {synth: speech, say: "never spoken before in this test"}
        """))
    with pytest.raises(InputError) as info:
        synth.render_turns(scenario)
    assert str(info.value).startswith(f"{tmp_path / 'scenario.yaml'}: turns[0] (id 'hello', "
                                      "line 3): synthesized speech needs espeak-ng")
    synth._espeak_cached.cache_clear()
