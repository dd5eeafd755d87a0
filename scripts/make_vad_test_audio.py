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
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from speecheval.core.audio import read_mono, resample, write_wav

RATE = 16_000
TRIM_LEVEL = 0.003  # |x| above this (about -50 dBFS) counts as audible
VOICE = "en-us"
SPEED_WPM = 165

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests/data/vad"

UTTERANCES: dict[str, str] = {
    "speech_a": "The quick brown fox jumps over the lazy dog near the river bank.",
    "speech_b": "Please call me back tomorrow morning, right after the weekly meeting.",
}


def synthesise(text: str) -> np.ndarray:
    """Speak ``text`` with espeak-ng and return it at 16 kHz, trimmed to its audible part."""
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "say.wav"
        subprocess.run(["espeak-ng", "-v", VOICE, "-s", str(SPEED_WPM), "-w", str(wav), text],
                       check=True)
        audio = read_mono(wav)
    samples = resample(audio.samples, audio.rate, RATE)
    loud = np.flatnonzero(np.abs(samples) > TRIM_LEVEL)
    return samples[loud[0]: loud[-1] + 1]


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
