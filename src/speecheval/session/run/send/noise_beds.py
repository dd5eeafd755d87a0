"""Noise beds under a whole session: white noise, babble, or music-like tone sequences.

Each bed is a loop of ``loop_ms`` rendered once per scenario from its seed, scaled so that
the user's speech (the RMS of all turn audio together) stands ``snr_db`` above it, and
added to every frame the caller sends, speech or not, as a room or a street would be.

* ``white``: Gaussian white noise (the ``synth: noise`` signal).
* ``babble``: ``voices`` espeak-ng voices, each reading its own rotation of a few
  sentences around the loop from its own seeded starting point, summed: a cafe.
* ``music``: a melody of plucked notes on a pentatonic scale (eighth notes at 120 bpm,
  four harmonics, decaying) over a bass note per second, seeded: hold music.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from ....core.synthetic_signals import samples_for_ms, white_noise
from ...scenario.conditions import NoiseSpec
from ..synth import espeak

BABBLE_VOICES = ("en-us", "en-gb+f3", "en-us+m3", "en-gb-scotland", "en-us+f5",
                 "en-gb-x-rp", "en-us+f2", "en-gb+m5", "en-us+m7", "en-gb+f4",
                 "en-us+f4", "en-gb+m2")
BABBLE_SENTENCES = (
    "Could you pass me the menu please, I think we should order soon.",
    "The train was late again this morning, so I missed the meeting.",
    "We are going to the coast next weekend if the weather holds.",
    "She said the report would be ready by Thursday afternoon.",
    "I have not seen that film yet, is it any good?",
    "Let me check my calendar and I will call you back later today.",
)
# Pentatonic scale steps (semitones above A3, 220 Hz) for the melody, and bass roots.
MELODY_STEPS = (0, 2, 4, 7, 9, 12, 14, 16, 19, 21)
BASS_STEPS = (-12, -7, -5, -10)
NOTE_MS = 250.0
BASS_MS = 1000.0


@lru_cache(maxsize=8)
def render_bed(spec: NoiseSpec, rate: int, speech_rms: float) -> NDArray[np.float64]:
    """The bed's loop at ``rate``, at ``snr_db`` below ``speech_rms`` (read-only).

    Rendered once per scenario: every session of a scenario (``--repeat``, ``session
    load``) has the same turns, so the same bed, and babble costs espeak-ng runs."""
    bed = _render(spec, rate, speech_rms)
    bed.flags.writeable = False
    return bed


def _render(spec: NoiseSpec, rate: int, speech_rms: float) -> NDArray[np.float64]:
    n = samples_for_ms(spec.loop_ms, rate)
    rng = np.random.default_rng(spec.seed)
    if spec.kind == "white":
        bed = white_noise(spec.loop_ms, rate, 0.0, spec.seed).astype(np.float64)
    elif spec.kind == "babble":
        bed = _babble(spec.voices, n, rate, rng)
    else:
        bed = _music(n, rate, rng)
    rms = float(np.sqrt(np.mean(np.square(bed))))
    target = speech_rms * 10.0 ** (-spec.snr_db / 20.0)
    return bed * (target / rms) if rms > 0 else bed


def _babble(voices: int, n: int, rate: int, rng: np.random.Generator) -> NDArray[np.float64]:
    bed = np.zeros(n)
    for v in range(voices):
        order = BABBLE_SENTENCES[v % len(BABBLE_SENTENCES):] + \
            BABBLE_SENTENCES[:v % len(BABBLE_SENTENCES)]
        talk = np.concatenate([_unit(espeak(text, BABBLE_VOICES[v], rate)) for text in order])
        bed += np.roll(np.resize(talk, n), int(rng.integers(n)))
    return bed


def _music(n: int, rate: int, rng: np.random.Generator) -> NDArray[np.float64]:
    bed = np.zeros(n)
    for step_ms, steps, octave_gain in ((NOTE_MS, MELODY_STEPS, 1.0),
                                        (BASS_MS, BASS_STEPS, 0.7)):
        length = samples_for_ms(step_ms, rate)
        t = np.arange(length) / rate
        envelope = np.minimum(1.0, t / 0.005) * np.exp(-t / (step_ms / 1000.0 / 3))
        for start in range(0, n, length):
            freq = 220.0 * 2.0 ** (int(rng.choice(steps)) / 12.0)
            note = sum(np.sin(2 * np.pi * h * freq * t) / h for h in range(1, 5))
            stop = min(n, start + length)
            bed[start:stop] += octave_gain * (envelope * note)[:stop - start]
    return bed


def _unit(x: NDArray[np.float32]) -> NDArray[np.float64]:
    rms = float(np.sqrt(np.mean(np.square(x.astype(np.float64)))))
    return x.astype(np.float64) / rms if rms > 0 else x.astype(np.float64)


class NoiseBed:
    """The bed played in a loop, added to each frame the caller sends."""

    def __init__(self, loop: NDArray[np.float64]) -> None:
        self.loop = loop

    def add(self, mic: NDArray[np.float64], pos: int) -> None:
        """Add the bed from sample ``pos`` on (any length: the loop wraps) to ``mic``."""
        size = self.loop.size
        at, done = pos % size, 0
        while done < mic.size:  # one slice per pass round the loop
            take = min(size - at, mic.size - done)
            mic[done:done + take] += self.loop[at:at + take]
            done, at = done + take, 0
