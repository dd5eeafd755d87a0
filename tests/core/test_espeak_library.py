"""Speech without Debian's espeak-ng program: the libespeak-ng of the espeakng-loader wheel
(the ``speech`` extra), run through the program's own command line.

On Debian's library the runner writes the program's samples exactly, so the two engines
differ only by the library and voices they load; with the program hidden from PATH the
wheel's library speaks, and the builders record which engine spoke."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from speecheval.core import espeak
from speecheval.core.audio import read_mono
from speecheval.core.errors import EXIT_BAD_INPUT, InputError
from speecheval.core.extras import MissingExtra, installed

DEBIAN_LIBRARY = Path("/usr/lib/x86_64-linux-gnu/libespeak-ng.so.1")
DEBIAN_DATA = Path("/usr/lib/x86_64-linux-gnu/espeak-ng-data")
needs_debian = pytest.mark.skipif(
    espeak.program() is None or not DEBIAN_LIBRARY.is_file(),
    reason="Debian's espeak-ng is not installed, or SPEECHEVAL_ESPEAK sets it aside "
           "(apt-get install espeak-ng)")
needs_loader = pytest.mark.skipif(
    not installed("espeakng_loader"),
    reason="espeakng-loader is not installed (the speech extra)")

TEXTS = ["Hello, this is a scripted test caller speaking.", "Wait", "line one\nline two",
         "Ünïcödé café — naïve", "-s 400 starts like an option", "Numbers 12345 and 3.14!",
         "  spaced  ", "Hello there.x"]
SENTENCE = "Hello, this is a scripted test caller speaking."


def _runner(*args: str, text: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "speecheval.core.espeak_library", *args],
                          input=text.encode(), capture_output=True, check=False, timeout=60)


@pytest.fixture
def no_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """PATH without espeak-ng: a folder of links to every other program of PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not Path(folder).is_dir():
            continue
        for program in Path(folder).iterdir():
            target = bin_dir / program.name
            if not program.name.startswith("espeak") and not target.exists():
                target.symlink_to(program)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv(espeak.ENGINE_VARIABLE, raising=False)   # either engine may speak
    espeak.engine_version.cache_clear()
    yield
    espeak.engine_version.cache_clear()


@needs_debian
@pytest.mark.parametrize(("voice", "wpm"), [("en-us", 165), ("en-gb", 450)])
def test_on_debians_library_the_runner_writes_the_programs_samples(
        tmp_path: Path, voice: str, wpm: int) -> None:
    for text in TEXTS:
        program, runner = tmp_path / "program.wav", tmp_path / "runner.wav"
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(wpm), "-w", str(program),
                        "--stdin"], input=text.encode(), check=True, capture_output=True)
        result = _runner("--library", str(DEBIAN_LIBRARY), "--data", str(DEBIAN_DATA),
                         "-v", voice, "-s", str(wpm), "-w", str(runner), "--stdin", text=text)
        assert (result.returncode, result.stderr) == (0, b""), text
        expected, got = read_mono(program), read_mono(runner)
        assert got.rate == expected.rate == espeak.OUTPUT_RATE
        assert np.array_equal(got.samples, expected.samples), text


@needs_debian
def test_where_debians_program_is_installed_it_speaks() -> None:
    """The engine that made the pinned outputs stays theirs where it is installed."""
    assert espeak.engine() == [shutil.which("espeak-ng")]
    assert espeak.engine_version().startswith("eSpeak NG text-to-speech: 1.51")


@needs_loader
def test_the_wheels_library_speaks_a_sentence(tmp_path: Path) -> None:
    wav = tmp_path / "say.wav"
    result = _runner("-v", "en-us", "-s", "175", "-w", str(wav), "--stdin", text=SENTENCE)
    assert (result.returncode, result.stderr) == (0, b"")
    audio = read_mono(wav)
    seconds = audio.samples.size / audio.rate
    # eight words at 175 words a minute, with espeak's pauses: about 2.5 s
    assert audio.rate == espeak.OUTPUT_RATE and 1.5 < seconds < 5.0
    rms = float(np.sqrt(np.mean(np.square(audio.samples.astype(np.float64)))))
    assert rms > 0.02   # speech, not silence (full scale is 1.0)


@needs_loader
def test_an_unknown_voice_fails_as_the_program_does(tmp_path: Path) -> None:
    wav = tmp_path / "say.wav"
    result = _runner("-v", "nosuch", "-w", str(wav), "--stdin", text="Hello")
    assert result.returncode == 1 and not wav.exists()
    assert b"voice does not exist" in result.stderr


@needs_loader
def test_without_the_program_the_library_speaks_and_says_so(
        tmp_path: Path, no_program: None) -> None:
    assert espeak.program() is None and espeak.available()
    assert espeak.engine()[1:] == ["-m", "speecheval.core.espeak_library"]
    assert espeak.engine_version().startswith("eSpeak NG text-to-speech: 1.52")
    assert "espeakng-loader 0.2.4" in espeak.engine_version()
    wav = tmp_path / "say.wav"
    result = espeak.speak_to_wav(SENTENCE, wav, voice="en-us", wpm=175, timeout_s=60)
    assert result.returncode == 0 and read_mono(wav).samples.size > espeak.OUTPUT_RATE


@needs_loader
def test_the_hour_cap_holds_for_the_library(tmp_path: Path, no_program: None) -> None:
    text = "This sentence is spoken for rather longer than one second of audio. " * 3
    with pytest.raises(InputError, match="lasts more than 1 s as speech"):
        espeak.speak_to_wav(text, tmp_path / "say.wav", voice="en-us", wpm=175,
                            timeout_s=60, max_audio_s=1)


@needs_loader
def test_the_v15_builders_speech_comes_from_the_library_without_the_program(
        no_program: None) -> None:
    from speecheval.fdb.v15.builder import speech

    speech.utterance.cache_clear()   # a clip an earlier test had Debian's program speak
    clip = speech.utterance("Sorry, could you say that again?", "en-us", 16_000)
    assert 0.8 < clip.size / 16_000 < 4.0
    level = 20 * np.log10(float(np.sqrt(np.mean(np.square(clip)))))
    assert abs(level - speech.LEVEL_DBFS) < 1e-6
    assert speech.espeak_version().startswith("eSpeak NG text-to-speech: 1.52")
    speech.utterance.cache_clear()


def test_without_either_engine_the_error_names_the_extra(
        no_program: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "espeakng_loader", None)
    assert not espeak.available()
    with pytest.raises(MissingExtra) as info:
        espeak.speak_to_wav("Hello", Path("unused.wav"), voice="en-us", wpm=175,
                            timeout_s=60, needed_for="synth: tts")
    assert info.value.exit_code == EXIT_BAD_INPUT
    assert str(info.value) == ("synth: tts (without Debian's espeak-ng program) needs "
                               "espeakng-loader, which is not installed: install it with "
                               "pip install 'speecheval[speech]'")


@pytest.fixture
def engine_variable(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """The monkeypatch that sets SPEECHEVAL_ESPEAK, the version cache cleared around it."""
    espeak.engine_version.cache_clear()
    yield monkeypatch
    monkeypatch.undo()
    espeak.engine_version.cache_clear()


@needs_loader
def test_the_variable_sets_the_program_aside_for_the_library(
        tmp_path: Path, engine_variable: pytest.MonkeyPatch) -> None:
    """``library`` speaks through the wheel even where Debian's program is on PATH (how
    a machine with the apt package proves it needs none)."""
    engine_variable.setenv("SPEECHEVAL_ESPEAK", "library")
    assert espeak.program() is None and espeak.available()
    assert espeak.engine()[1:] == ["-m", "speecheval.core.espeak_library"]
    assert espeak.engine_version().startswith("eSpeak NG text-to-speech: 1.52")
    wav = tmp_path / "say.wav"
    result = espeak.speak_to_wav(SENTENCE, wav, voice="en-us", wpm=175, timeout_s=60)
    assert result.returncode == 0 and read_mono(wav).samples.size > espeak.OUTPUT_RATE


@needs_debian
def test_the_variable_can_insist_on_the_program(engine_variable: pytest.MonkeyPatch) -> None:
    engine_variable.setenv("SPEECHEVAL_ESPEAK", "program")
    assert espeak.engine() == [shutil.which("espeak-ng")]
    assert espeak.engine_version().startswith("eSpeak NG text-to-speech: 1.51 ")


def test_the_program_insisted_on_but_absent_is_one_clear_error(
        no_program: None, engine_variable: pytest.MonkeyPatch) -> None:
    engine_variable.setenv("SPEECHEVAL_ESPEAK", "program")
    assert espeak.program() is None and not espeak.library_installed()
    assert not espeak.available()   # the wheel, installed or not, is refused
    with pytest.raises(InputError) as info:
        espeak.engine("synth: tts")
    assert info.value.exit_code == EXIT_BAD_INPUT
    assert str(info.value) == ("synth: tts needs Debian's espeak-ng program "
                               "(SPEECHEVAL_ESPEAK=program), which is not on PATH: install "
                               "it with apt-get install espeak-ng, or unset SPEECHEVAL_ESPEAK")


@pytest.mark.parametrize("value", ["loader", "Program", "binary"])
def test_an_unknown_engine_is_refused(engine_variable: pytest.MonkeyPatch, value: str) -> None:
    engine_variable.setenv("SPEECHEVAL_ESPEAK", value)
    with pytest.raises(InputError) as info:
        espeak.available()
    assert str(info.value) == (f"SPEECHEVAL_ESPEAK={value!r} is not an espeak-ng engine: "
                               "expected auto, program, library")


def test_an_unknown_engine_stops_a_command_with_exit_2(
        tmp_path: Path, engine_variable: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from speecheval.cli import main
    from speecheval.session.run import synth

    synth._espeak_cached.cache_clear()   # turns an earlier test spoke would not ask again
    engine_variable.setenv("SPEECHEVAL_ESPEAK", "loader")
    out = tmp_path / "run"
    booking = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "booking.yaml"
    assert main(["session", "run", str(booking), "--out", str(out)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SPEECHEVAL_ESPEAK='loader' is not an espeak-ng" in err
    assert not out.exists()
