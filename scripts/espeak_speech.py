"""espeak-ng speech at 16 kHz for the scripts that regenerate committed test audio.

Both generators (``make_fdb_speech.py``, ``make_vad_test_audio.py``) synthesise text with
espeak-ng, which writes 22.05 kHz WAV, bring it to 16 kHz and cut it to its audible part;
doing that in one place keeps their audio made the same way. Imported by those scripts
when run from the repository root (``python scripts/<name>.py`` puts this folder first on
``sys.path``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from speecheval.core.audio import read_mono, resample
from speecheval.core.espeak import speak_to_wav

RATE = 16_000
TRIM_LEVEL = 0.003  # |x| above this (about -50 dBFS) counts as audible


def speak(text: str, voice: str, speed_wpm: int, workdir: Path) -> NDArray[np.float32]:
    """``text`` spoken by espeak-ng (``voice``, ``speed_wpm``) at RATE, untrimmed.

    The intermediate WAV goes to ``workdir`` (overwritten on each call).
    """
    wav = workdir / "espeak.wav"
    speak_to_wav(text, wav, voice=voice, wpm=speed_wpm, timeout_s=60).check_returncode()
    audio = read_mono(wav)
    return resample(audio.samples, audio.rate, RATE)


def audible_span(samples: NDArray[np.float32], what: str) -> tuple[int, int]:
    """``(first, last + 1)``: the sample range whose ends exceed TRIM_LEVEL in magnitude.

    ``what`` names the text in the error raised when nothing is audible.
    """
    audible = np.flatnonzero(np.abs(samples) > TRIM_LEVEL)
    if audible.size == 0:
        raise RuntimeError(f"espeak-ng produced no audible audio for {what!r}")
    return int(audible[0]), int(audible[-1]) + 1
