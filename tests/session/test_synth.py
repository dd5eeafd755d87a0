"""Turn audio: voicebench's signals sample for sample, espeak-ng words (tts), WAV files."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from speech_engine import needs_speech

from speecheval.cli import main
from speecheval.core import espeak
from speecheval.core.audio import write_wav
from speecheval.core.errors import InputError
from speecheval.session.run import synth
from speecheval.session.scenario.load import load_scenario
from speecheval.vad.streaming import detect_segments

from .helpers import write_scenario


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


def test_stereo_file_is_mixed_down_with_a_notice(tmp_path: Path) -> None:
    left = np.full(1600, 0.5, dtype=np.float32)
    right = np.full(1600, -0.25, dtype=np.float32)
    write_wav(tmp_path / "stereo.wav", np.stack([left, right], axis=1), 16000)
    path = write_scenario(tmp_path, """
        name: file
        turns:
          - id: greet
            audio: {synth: tone}
          - id: hello
            audio: {file: stereo.wav}
        """)
    notices: list[str] = []
    _, clip = synth.render_turns(load_scenario(path), notices.append)
    # the mean of the channels: (0.5 - 0.25) / 2 = 0.125 (both exact in PCM16)
    assert clip.size == 1600 and np.all(clip == np.float32(0.125))
    # the second turn's entry starts on line 5 of the file
    assert notices == [f"{path}: turns[1] (id 'hello', line 5): audio file "
                       f"{tmp_path / 'stereo.wav'} has 2 channels; using their mean (mono)"]


def test_stereo_notice_goes_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_wav(tmp_path / "stereo.wav", np.zeros((160, 2), dtype=np.float32), 16000)
    path = write_scenario(tmp_path, """
        name: file
        turns:
          - audio: {file: stereo.wav}
        """)
    synth.render_turns(load_scenario(path))
    assert capsys.readouterr().err.startswith(f"notice: {path}: turns[0] (id 'turn-1', line 3)")


VOICEBENCH_SIGNALS = """
name: signals
sample_rate: {rate}
turns:
  - audio: {{synth: speech, duration_ms: 1800}}
  - audio: {{synth: speech, duration_ms: 1234.5, seed: 2, level_db: -31}}
  - audio: {{synth: speech}}
  - audio: {{synth: tone, duration_ms: 333, freq_hz: 1000, level_db: -12}}
  - audio: {{synth: noise, duration_ms: 180, level_db: -25}}
  - audio: {{synth: noise, duration_ms: 181, level_db: -25, seed: 9}}
  - audio: {{synth: silence, duration_ms: 70}}
"""


@pytest.mark.parametrize("rate", [8000, 16000, 22050, 24000, 44100, 48000])
def test_synth_signals_are_voicebench_signals_sample_for_sample(tmp_path: Path,
                                                                rate: int) -> None:
    vb_scenario = pytest.importorskip("voicebench.scenario")
    path = write_scenario(tmp_path, VOICEBENCH_SIGNALS.format(rate=rate))
    ours = synth.render_turns(load_scenario(path))
    theirs = [turn.audio.render(rate) for turn in vb_scenario.load_scenario(path).turns]
    assert len(ours) == len(theirs) == 7
    for index, (mine, other) in enumerate(zip(ours, theirs, strict=True)):
        assert mine.dtype == other.dtype == np.float32, index
        assert np.array_equal(mine, other), index
    assert ours[2].size == rate  # speech without duration_ms lasts 1000 ms, as in voicebench


def test_speech_signal_keys_for_words_are_refused(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, """
        name: words
        turns:
          - audio: {synth: speech, say: "Hello there."}
        """)
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert str(info.value) == (f"{path}: turns[0].audio.say (line 3): applies to 'synth: tts' "
                               "(words spoken by espeak-ng) only; 'synth: speech' is a signal "
                               "without words")


@needs_speech
def test_tts_is_fitted_to_its_declared_duration(tmp_path: Path) -> None:
    scenario = load_scenario(write_scenario(tmp_path, """
        name: speech
        turns:
          - audio: {synth: tts, duration_ms: 1500}
            text: "It's for next Tuesday."
          - audio: {synth: tts, say: "It's for next Tuesday.", level_db: -26}
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
    monkeypatch.delenv(espeak.ENGINE_VARIABLE, raising=False)   # either engine may speak
    monkeypatch.setitem(sys.modules, "espeakng_loader", None)   # nor the speech extra
    synth._espeak_cached.cache_clear()
    scenario = load_scenario(write_scenario(tmp_path, """
        name: speech
        turns:
          - id: hello
            audio: {synth: tts, say: "never spoken before in this test"}
        """))
    with pytest.raises(InputError) as info:
        synth.render_turns(scenario)
    assert str(info.value).startswith(f"{tmp_path / 'scenario.yaml'}: turns[0] (id 'hello', "
                                      "line 3): synthesized speech (without Debian's "
                                      "espeak-ng program) needs espeakng-loader")
    assert str(info.value).endswith("install it with pip install 'speecheval[speech]'")
    synth._espeak_cached.cache_clear()


@needs_speech
def test_a_say_text_past_the_argument_limit_is_spoken(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    # 200,012 characters: past Linux's 131,072 bytes for one argument, where espeak-ng
    # failed with "Argument list too long" (an OSError traceback); the trailing spaces add
    # no sound, so the turn is the short text's
    long = write_scenario(tmp_path, "name: long\nturns:\n  - audio: {synth: tts, say: 'Hello "
                                    "there." + " " * 200_000 + "'}\n", "long.yaml")
    short = write_scenario(tmp_path, "name: short\nturns:\n  - audio: {synth: tts, say: 'Hello "
                                     "there.'}\n", "short.yaml")
    assert main(["session", "validate", str(long)]) == 0
    assert capsys.readouterr().out == f"ok {long}: long, 1 turns\n"
    [spoken] = synth.render_turns(load_scenario(long))
    [expected] = synth.render_turns(load_scenario(short))
    assert spoken.size > 0 and np.array_equal(spoken, expected)


def test_a_nul_in_a_json_scenario_say_exits_2(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # JSON may hold a NUL ("\u0000"), YAML may not; as an argument it was a ValueError
    # traceback ("embedded null byte"), on standard input espeak-ng would stop there
    path = tmp_path / "nul.json"
    path.write_text('{"name": "nul", "turns": [{"audio": {"synth": "tts", "say": '
                    '"Hello\\u0000there"}}]}', encoding="utf-8")
    assert main(["session", "validate", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"error: {path}: turns[0] (id 'turn-1', line 1): the text to speak holds a NUL "
        "character, which espeak-ng would take for its end\n")
