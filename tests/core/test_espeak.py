"""espeak-ng reads its text on standard input: the audio the argument gave, any length,
and a speech past its limit or a run past its time is stopped and refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from speech_engine import needs_speech

from speecheval.core import espeak
from speecheval.core.errors import InputError
from speecheval.core.espeak import speak_to_wav

# the program's own argument against speak_to_wav's standard input: both must be the program
needs_program = pytest.mark.skipif(
    espeak.program() is None,
    reason="Debian's espeak-ng program is not the engine here (apt-get install espeak-ng)")

TEXTS = ["Hello, this is a scripted test caller speaking.", "Wait", "line one\nline two",
         "Ünïcödé café — naïve", "-s 400 starts like an option", "Numbers 12345 and 3.14!",
         "  spaced  "]


@needs_program
@pytest.mark.parametrize(("voice", "wpm"), [("en-us", 165), ("en-us", 175), ("en-gb", 450)])
def test_standard_input_gives_the_audio_the_argument_gave(tmp_path: Path, voice: str,
                                                          wpm: int) -> None:
    for text in TEXTS:
        argument = tmp_path / "argument.wav"
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(wpm), "-w", str(argument), "--",
                        text], check=True, capture_output=True)
        spoken = tmp_path / "stdin.wav"
        result = speak_to_wav(text, spoken, voice=voice, wpm=wpm, timeout_s=60)
        assert (result.returncode, result.stderr) == (0, "")
        assert spoken.read_bytes() == argument.read_bytes(), text


@needs_speech
def test_a_text_past_the_argument_limit_is_spoken(tmp_path: Path) -> None:
    # 200,012 characters: past Linux's 131,072 bytes for one argument ("Argument list too
    # long" as an argument); the trailing spaces add no sound
    speak_to_wav("Hello there.", tmp_path / "short.wav", voice="en-us", wpm=175, timeout_s=60)
    speak_to_wav("Hello there." + " " * 200_000, tmp_path / "long.wav", voice="en-us",
                 wpm=175, timeout_s=60)
    assert (tmp_path / "long.wav").read_bytes() == (tmp_path / "short.wav").read_bytes()


@needs_speech
def test_speech_past_its_limit_is_refused(tmp_path: Path) -> None:
    # about 25 words (several seconds at 175 words a minute) against a 1 s limit: 44 + 2 *
    # 22050 bytes of WAV; refused whether espeak-ng is still running or has finished
    text = "This sentence is spoken for rather longer than one second of audio. " * 3
    wav = tmp_path / "say.wav"
    with pytest.raises(InputError) as info:
        speak_to_wav(text, wav, voice="en-us", wpm=175, timeout_s=60, max_audio_s=1)
    assert str(info.value) == (f"the text to speak ({len(text)} characters) lasts more than "
                               "1 s as speech; shorten it")


def test_a_run_past_its_time_is_stopped(tmp_path: Path) -> None:
    # a program in espeak-ng's place that never finishes (it ignores its arguments)
    program = tmp_path / "silent-espeak"
    program.write_text("#!/bin/sh\nexec sleep 60\n")
    program.chmod(0o755)
    with pytest.raises(InputError) as info:
        speak_to_wav("Hello", tmp_path / "say.wav", voice="en-us", wpm=175, timeout_s=0.2,
                     executable=str(program))
    assert str(info.value) == ("espeak-ng did not finish speaking the text (5 characters) "
                               "within 0.2 s")


def test_a_nul_is_refused_before_espeak_runs(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        speak_to_wav("Hello\0there", tmp_path / "say.wav", voice="en-us", wpm=175,
                     timeout_s=60, executable=str(tmp_path / "not-run"))
    assert str(info.value) == ("the text to speak holds a NUL character, which espeak-ng "
                               "would take for its end")


def test_a_long_text_reaches_an_engine_slow_to_start(tmp_path: Path) -> None:
    # an engine that reads its standard input only after 0.3 s (six 50 ms polls), as the
    # library's Python process may: the 200,012 bytes (past the 65,536 a pipe holds) must
    # all arrive; before, a retry of communicate without the text wrote no more of it and
    # the run waited to its time limit. The program reports the bytes it read on stderr.
    program = tmp_path / "slow-espeak"
    program.write_text("#!/bin/sh\nsleep 0.3\nwc -c >&2\n")
    program.chmod(0o755)
    text = "Hello there." + " " * 200_000
    result = speak_to_wav(text, tmp_path / "say.wav", voice="en-us", wpm=175, timeout_s=20,
                          executable=str(program))
    assert (result.returncode, result.stderr.strip()) == (0, "200012")
