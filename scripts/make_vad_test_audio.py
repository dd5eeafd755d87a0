"""Regenerate the espeak-ng utterances that the Silero VAD tests build their audio from.

The parity tests need real speech (Silero scores synthetic tones and noise near zero, so
they alone would never exercise the segment state machine). Two sentences are synthesised,
resampled from espeak-ng's 22.05 kHz to 16 kHz, and trimmed to their audible part so that
the tests control every pause exactly when they join them. Everything else the tests use
(pauses, noise, tones, clipping, other sample rates) is made in the tests from these two
files, which keeps the committed audio small (about 190 KB of 16-bit PCM).

Run from the repository root (needs the Debian package ``espeak-ng``)::

    .venv/bin/python scripts/make_vad_test_audio.py [--out DIR]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from espeak_speech import RATE, audible_span, speak
from numpy.typing import NDArray

from speecheval.core.audio import write_wav

VOICE = "en-us"
SPEED_WPM = 165

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests/data/vad"

UTTERANCES: dict[str, str] = {
    "speech_a": "The quick brown fox jumps over the lazy dog near the river bank.",
    "speech_b": "Please call me back tomorrow morning, right after the weekly meeting.",
}


def synthesise(text: str) -> NDArray[np.float32]:
    """Speak ``text`` with espeak-ng and return it at 16 kHz, trimmed to its audible part."""
    with tempfile.TemporaryDirectory() as tmp:
        samples = speak(text, VOICE, SPEED_WPM, Path(tmp))
    first, end = audible_span(samples, text)
    return samples[first:end]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in UTTERANCES.items():
        samples = synthesise(text)
        write_wav(args.out / f"{name}.wav", samples, RATE)
        print(f"{name}.wav: {samples.size / RATE:.2f} s")


if __name__ == "__main__":
    main()
