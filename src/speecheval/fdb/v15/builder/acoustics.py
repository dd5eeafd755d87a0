"""The acoustic treatments of the v1.5 overlap turns: level, shelf, low-pass, reflections.

The paper processes the side-conversation and background turns so that they sound away
from the microphone. Each treatment is one small function over float samples, so each can
be tested alone on a tone or an impulse:

* :func:`apply_gain_db`: the level change (-8 dB talking-to-other, -15 dB background);
* :func:`high_shelf`: a cut of ``gain_db`` above ``corner_hz`` (-5 dB above 4 kHz);
* :func:`low_pass`: a Butterworth low-pass (3 kHz for background speech);
* :func:`add_reflections`: delayed, attenuated copies added to the signal (45 ms at -6 dB
  and 120 ms at -12 dB; a 100 ms echo at -10 dB).

The filters run forwards and backwards (``scipy.signal.sosfiltfilt``), so they shift no
sound in time and the overlap window in metadata.json stays where the speech is. The
magnitude response of a Butterworth filter of order N run both ways is exactly
``|H|^2 = 1 / (1 + r^(2N))`` with ``r = tan(pi f / fs) / tan(pi fc / fs)`` (low-pass;
``1 / r`` for high-pass), which the tests check against tones. The shelf is the signal
plus ``(g - 1)`` times its zero-phase high-passed part, so its gain is
``1 + (g - 1) |H_hp|^2``: 1 far below the corner, ``g`` far above it, halfway (in
amplitude) at the corner.

scipy.signal is imported inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

FILTER_ORDER = 4
"""Butterworth order of the shelf's high-pass and of the low-pass (24 dB/octave one way,
48 dB/octave after the forward and backward pass)."""

Signal = NDArray[np.float64]


def db_to_gain(db: float) -> float:
    """Amplitude factor of a level change in dB: 10^(db / 20)."""
    return float(10.0 ** (db / 20.0))


@dataclass(frozen=True)
class Reflection:
    """A copy of the signal ``delay_ms`` later, ``level_db`` relative to the direct sound."""

    delay_ms: float
    level_db: float

    def delay_samples(self, rate: int) -> int:
        """The delay in whole samples (45 ms at 16 kHz is 720)."""
        return round(self.delay_ms * rate / 1000)


def apply_gain_db(signal: Signal, db: float) -> Signal:
    """``signal`` scaled by ``db`` decibels."""
    return np.asarray(signal, dtype=np.float64) * db_to_gain(db)


def _butter(kind: str, cutoff_hz: float, rate: int) -> NDArray[np.float64]:
    from scipy.signal import butter

    if not 0 < cutoff_hz < rate / 2:
        raise ValueError(f"cut-off {cutoff_hz} Hz must lie between 0 and {rate / 2} Hz")
    sos: NDArray[np.float64] = butter(FILTER_ORDER, cutoff_hz, btype=kind, fs=rate,
                                      output="sos")
    return sos


def _zero_phase(sos: NDArray[np.float64], signal: Signal) -> Signal:
    from scipy.signal import sosfiltfilt

    data = np.asarray(signal, dtype=np.float64)
    if data.size == 0:
        return data.copy()
    # The default padding (3 x filter length) needs more samples than a very short clip
    # has; scipy then asks for a shorter pad.
    pad = min(3 * (2 * sos.shape[0] + 1), data.size - 1)
    out: Signal = sosfiltfilt(sos, data, padlen=pad)
    return out


def low_pass(signal: Signal, cutoff_hz: float, rate: int) -> Signal:
    """Zero-phase Butterworth low-pass at ``cutoff_hz`` (-6 dB there, both passes)."""
    return _zero_phase(_butter("lowpass", cutoff_hz, rate), signal)


def high_shelf(signal: Signal, corner_hz: float, gain_db: float, rate: int) -> Signal:
    """``signal`` with everything well above ``corner_hz`` changed by ``gain_db``."""
    data = np.asarray(signal, dtype=np.float64)
    high = _zero_phase(_butter("highpass", corner_hz, rate), data)
    return data + (db_to_gain(gain_db) - 1.0) * high


def add_reflections(signal: Signal, reflections: Sequence[Reflection], rate: int) -> Signal:
    """The direct sound plus each reflection; the result is longer by the largest delay.

    The reflections are one FIR filter (1 at lag 0, each reflection's gain at its lag)
    applied with ``scipy.signal.lfilter`` to the signal padded with that many zeros, so
    the last reflection's tail is kept rather than cut.
    """
    from scipy.signal import lfilter

    data = np.asarray(signal, dtype=np.float64)
    if not reflections:
        return data.copy()
    delays = [r.delay_samples(rate) for r in reflections]
    if min(delays) <= 0:
        raise ValueError("a reflection needs a delay of at least one sample")
    taps = np.zeros(max(delays) + 1)
    taps[0] = 1.0
    for reflection, delay in zip(reflections, delays, strict=True):
        taps[delay] += db_to_gain(reflection.level_db)
    padded = np.concatenate([data, np.zeros(max(delays))])
    out: Signal = lfilter(taps, [1.0], padded)
    return out
