"""Deterministic test signals: tones, white noise and a speech-shaped harmonic signal.

Scenarios use them for non-speech turns (a cough is a burst of noise) and the mock agent
speaks with the speech-shaped signal, which an energy detector treats like voiced speech
but costs nothing to generate. Levels are RMS dBFS; every signal gets 5 ms linear fades
so that it starts and ends without a click.
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
    n = min(samples_for_ms(FADE_MS, rate), signal.size // 2)
    if n > 0:
        ramp = np.linspace(0.0, 1.0, n)
        signal[:n] *= ramp
        signal[-n:] *= ramp[::-1]
    return signal.astype(np.float32)


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
