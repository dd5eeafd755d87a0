"""espeak-ng speech for the v1.5 builder: one utterance in one voice, at a fixed level.

The v1.5 scenarios need two voices (the user, and a different voice for background
speech) and several hundred sentences, so the utterances are synthesised when the dataset
is built rather than committed as v1.0's clips are. espeak-ng is deterministic for a
given build, whose version the dataset records; each utterance is trimmed to its audible
part and scaled to :data:`LEVEL_DBFS` RMS so that the paper's level changes (-8 dB,
-15 dB) are relative to the user's speech.
"""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ....core import espeak
from ....core.audio import read_mono, resample
from ....core.errors import InputError
from ....core.espeak import speak_to_wav

WPM = 175
LEVEL_DBFS = -26.0
"""RMS level of every utterance before a scenario's own level change (espeak-ng's peaks
reach about 20 dB above its RMS, so they stay near -6 dBFS)."""
TRIM_FRACTION = 0.01
"""Leading and trailing samples below this fraction of the peak are espeak's silence."""


NEEDED_FOR = "building the v1.5 dataset"


def espeak_version() -> str:
    """The engine's first ``--version`` line (recorded with the dataset): Debian's
    program or the ``speech`` extra's library (:func:`speecheval.core.espeak.engine`)."""
    return espeak.engine_version(NEEDED_FOR)


@cache
def utterance(text: str, voice: str, rate: int) -> NDArray[np.float64]:
    """``text`` spoken in ``voice`` at ``rate`` Hz, trimmed, at :data:`LEVEL_DBFS` RMS."""
    with tempfile.TemporaryDirectory(prefix="speecheval-fdb15-") as tmp:
        wav = Path(tmp) / "say.wav"
        result = speak_to_wav(text, wav, voice=voice, wpm=WPM, timeout_s=60,
                              needed_for=NEEDED_FOR)
        if result.returncode != 0 or not wav.is_file():
            detail = " ".join(result.stderr.split()) or f"exit status {result.returncode}"
            raise InputError(f"espeak-ng could not say {text!r} in voice {voice!r}: {detail}")
        audio = read_mono(wav)
    samples = resample(audio.samples, audio.rate, rate).astype(np.float64)
    loud = np.flatnonzero(np.abs(samples) > TRIM_FRACTION * float(np.max(np.abs(samples),
                                                                         initial=0.0)))
    if loud.size == 0:
        raise InputError(f"espeak-ng produced silence for {text!r} in voice {voice!r}")
    trimmed = samples[loud[0]:loud[-1] + 1]
    rms = float(np.sqrt(np.mean(np.square(trimmed))))
    out = trimmed * (10 ** (LEVEL_DBFS / 20) / rms)
    out.setflags(write=False)
    return out
