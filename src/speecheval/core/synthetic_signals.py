"""Deterministic test signals: tones, white noise and speech-shaped harmonic signals.

Scenarios use them for their ``synth`` turns (a cough is a burst of noise) and the mock
agent speaks with a speech-shaped signal, which an energy detector treats like voiced
speech but costs nothing to generate. Levels are RMS dBFS; every signal gets 5 ms linear
fades so that it starts and ends without a click.

Tone, noise and :func:`harmonic_speech` are defined exactly as voicebench 0.2.0 renders a
scenario's ``synth`` signals, down to the float32 arithmetic of the fades, so a scenario
written for voicebench plays the very same samples here (``tests/session/test_synth.py``
compares them with voicebench's renderer).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FADE_MS = 5.0


def samples_for_ms(ms: float, rate: int) -> int:
    """Whole samples in ``ms`` milliseconds at ``rate`` Hz (rounded half to even).

    >>> samples_for_ms(20, 16000), samples_for_ms(0.03125, 16000)
    (320, 0)
    """
    return round(ms * rate / 1000.0)


def db_to_amplitude(db: float) -> float:
    """dBFS to linear amplitude: -20 dBFS is 0.1.

    >>> db_to_amplitude(-20.0)
    0.1
    """
    return float(10.0 ** (db / 20.0))


def _fade(signal: NDArray[np.float64], rate: int) -> NDArray[np.float32]:
    """The signal as float32 with linear fades, applied in float32 after the conversion
    (voicebench's order: fading in float64 first differs in the last bit)."""
    out = signal.astype(np.float32)
    n = min(samples_for_ms(FADE_MS, rate), out.size // 2)
    if n > 0:
        ramp = np.linspace(0.0, 1.0, n, dtype=np.float32)
        out[:n] *= ramp
        out[-n:] *= ramp[::-1]
    return out


def _at_level(signal: NDArray[np.float64], level_db: float) -> NDArray[np.float64]:
    rms = float(np.sqrt(np.mean(np.square(signal)))) if signal.size else 0.0
    return signal * (db_to_amplitude(level_db) / rms) if rms > 0 else signal


def tone(duration_ms: float, rate: int, freq_hz: float, level_db: float) -> NDArray[np.float32]:
    """A sine at ``freq_hz`` whose RMS is ``level_db`` dBFS (peak = RMS * sqrt 2)."""
    t = np.arange(samples_for_ms(duration_ms, rate)) / rate
    peak = db_to_amplitude(level_db) * np.sqrt(2.0)
    return _fade(peak * np.sin(2.0 * np.pi * freq_hz * t), rate)


def white_noise(duration_ms: float, rate: int, level_db: float, seed: int) -> NDArray[np.float32]:
    """Gaussian white noise at ``level_db`` dBFS RMS from ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    n = samples_for_ms(duration_ms, rate)
    return _fade(rng.standard_normal(n) * db_to_amplitude(level_db), rate)


def speech_shaped(duration_ms: float, rate: int, level_db: float, seed: int,
                  f0_hz: float = 200.0) -> NDArray[np.float32]:
    """A voiced-speech stand-in: harmonics of a gliding f0 under a 4 Hz syllable envelope.

    The envelope never drops below 40% of its peak (-8 dB), so with the default detector
    hysteresis (6 dB below a -45 dBFS threshold) the signal reads as one continuous
    utterance at any level above about -35 dBFS. ``seed`` moves the glide's phase so that
    different replies are not sample-identical.
    """
    n = samples_for_ms(duration_ms, rate)
    if n == 0:
        return np.zeros(0, dtype=np.float32)
    rng = np.random.default_rng(seed)
    t = np.arange(n) / rate
    glide = f0_hz * (1.0 + 0.1 * np.sin(2.0 * np.pi * 0.5 * t + rng.uniform(0.0, 2.0 * np.pi)))
    cycles = np.cumsum(glide) / rate
    voiced = np.interp(cycles % 1.0, _WAVE_PHASE, _harmonic_period(f0_hz, rate))
    envelope = 0.4 + 0.6 * (0.5 - 0.5 * np.cos(2.0 * np.pi * 4.0 * t))
    return _fade(_at_level(voiced * envelope, level_db), rate)


def harmonic_speech(duration_ms: float, rate: int, level_db: float,
                    seed: int) -> NDArray[np.float32]:
    """voicebench's ``synth: speech`` signal: a harmonic complex on a wandering 140 Hz
    fundamental under a 4 Hz syllable envelope, at ``level_db`` dBFS RMS.

    The fundamental wanders by 8% at 0.7 Hz from a phase drawn from
    ``default_rng(seed)``; harmonics 1, 2, ... with amplitude 1/k are summed while
    ``1.1 k f0`` stays below Nyquist (11 at most); the envelope swings between 0.35 and
    1. An energy detector hears one continuous utterance; a speech recogniser or a neural
    VAD hears no words (``synth: tts`` speaks real words). Every operation, and its
    order, is the one voicebench 0.2.0 performs, so the samples are bit-identical.
    """
    n = samples_for_ms(duration_ms, rate)
    if n == 0:
        return np.zeros(0, dtype=np.float32)
    f0_hz = 140.0
    rng = np.random.default_rng(seed)
    t = np.arange(n, dtype=np.float64) / rate
    wander = 1.0 + 0.08 * np.sin(2.0 * np.pi * 0.7 * t + rng.uniform(0, 2 * np.pi))
    phase = 2.0 * np.pi * np.cumsum(f0_hz * wander) / rate
    voiced = np.zeros(n, dtype=np.float64)
    for k in range(1, 12):
        if k * f0_hz * 1.1 >= rate / 2.0:
            break
        voiced += np.sin(k * phase) / k
    envelope = 0.35 + 0.65 * (0.5 + 0.5 * np.sin(2.0 * np.pi * 4.0 * t - np.pi / 2))
    out = voiced * envelope
    rms = float(np.sqrt(np.mean(out**2)))
    if rms > 0:
        out *= db_to_amplitude(level_db) / rms
    return _fade(out, rate)


_WAVE_POINTS = 2048
_WAVE_PHASE = np.linspace(0.0, 1.0, _WAVE_POINTS + 1)


def _harmonic_period(f0_hz: float, rate: int) -> NDArray[np.float64]:
    """One period of sum_k sin(k x) / k over the harmonics below Nyquist (with headroom).

    A wavetable read by phase costs one interpolation per sample instead of one sine per
    harmonic per sample.
    """
    harmonics = np.arange(1, 11)
    harmonics = harmonics[harmonics * f0_hz * 1.1 < rate / 2.0]
    angle = 2.0 * np.pi * _WAVE_PHASE
    return np.asarray((np.sin(np.outer(angle, harmonics)) / harmonics).sum(axis=1))
