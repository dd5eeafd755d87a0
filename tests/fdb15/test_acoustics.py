"""The overlap treatments measured back from tones and impulses.

Expected tone gains come from the closed form of a Butterworth filter of order N = 4
run forwards and backwards: |H|^2 = 1 / (1 + r^8), r = tan(pi f / fs) / tan(pi fc / fs)
for the low-pass and its inverse for the high-pass; the shelf's gain is
1 + (g - 1) |H_hp|^2 with g = 10^(-5/20) = 0.562341.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from speecheval.fdb.v15.builder.acoustics import (
    Reflection,
    add_reflections,
    apply_gain_db,
    db_to_gain,
    high_shelf,
    low_pass,
)


def _tone_gain_db(filtered_of, freq_hz: float, rate: int) -> float:
    """Gain of a 1 s tone, measured as the RMS ratio over the middle half (no edges)."""
    t = np.arange(rate) / rate
    tone = np.sin(2 * np.pi * freq_hz * t)
    out = filtered_of(tone)
    middle = slice(rate // 4, 3 * rate // 4)
    return 20 * math.log10(np.sqrt(np.mean(out[middle] ** 2)) / np.sqrt(np.mean(tone[middle] ** 2)))


def test_gain_db_scales_by_ten_to_the_db_over_twenty() -> None:
    # -8 dB: 10^(-0.4) = 0.398107; -15 dB: 10^(-0.75) = 0.177828
    assert apply_gain_db(np.ones(3), -8.0).tolist() == pytest.approx([0.398107] * 3, abs=1e-6)
    assert db_to_gain(-15.0) == pytest.approx(0.177828, abs=1e-6)


def test_high_shelf_cuts_8_khz_by_5_db_and_leaves_1_khz() -> None:
    # fs 48 kHz, corner 4 kHz. At 8 kHz: r = tan(15 deg) / tan(30 deg) = 0.267949 / 0.577350
    # = 0.464102, r^8 = 0.0021523, |H_hp|^2 = 0.997852, gain = 1 - 0.437659 * 0.997852
    # = 0.563281 -> -4.9855 dB.
    def shelf(x: np.ndarray) -> np.ndarray:
        return high_shelf(x, 4000.0, -5.0, 48_000)

    assert _tone_gain_db(shelf, 8000.0, 48_000) == pytest.approx(-4.9855, abs=0.005)
    # At 1 kHz: r = 0.267949 / tan(3.75 deg) = 4.08817, r^8 = 78025, |H_hp|^2 = 1.28e-5,
    # gain = 1 - 0.437659 * 1.28e-5 -> -0.00005 dB.
    assert _tone_gain_db(shelf, 1000.0, 48_000) == pytest.approx(0.0, abs=0.005)


def test_high_shelf_at_the_dataset_rate() -> None:
    # fs 16 kHz, 6 kHz tone: r = tan(45 deg) / tan(67.5 deg) = 0.414214, r^8 = 0.00086655,
    # |H_hp|^2 = 0.999134, gain = 1 - 0.437659 * 0.999134 = 0.562720 -> -4.9941 dB.
    def shelf(x: np.ndarray) -> np.ndarray:
        return high_shelf(x, 4000.0, -5.0, 16_000)

    assert _tone_gain_db(shelf, 6000.0, 16_000) == pytest.approx(-4.9941, abs=0.005)
    # At the corner the gain is halfway in amplitude: 1 - 0.437659 / 2 = 0.781171 -> -2.1452 dB.
    assert _tone_gain_db(shelf, 4000.0, 16_000) == pytest.approx(-2.1452, abs=0.005)


def test_low_pass_at_3_khz() -> None:
    # fs 16 kHz, cut-off 3 kHz. At 6 kHz: r = tan(67.5 deg) / tan(33.75 deg) = 2.414214 /
    # 0.668179 = 3.613126, r^8 = 29044.6, gain = 1 / 29045.6 -> -89.26 dB.
    def lp(x: np.ndarray) -> np.ndarray:
        return low_pass(x, 3000.0, 16_000)

    assert _tone_gain_db(lp, 6000.0, 16_000) == pytest.approx(-89.26, abs=0.05)
    # At the cut-off: 1 / (1 + 1) = 0.5 -> -6.0206 dB.
    assert _tone_gain_db(lp, 3000.0, 16_000) == pytest.approx(-6.0206, abs=0.005)
    # At 1 kHz: r = tan(11.25 deg) / tan(33.75 deg) = 0.297692, r^8 = 6.17e-5 -> -0.0005 dB.
    assert _tone_gain_db(lp, 1000.0, 16_000) == pytest.approx(0.0, abs=0.005)


def test_reflections_measured_back_from_an_impulse() -> None:
    # 45 ms and 120 ms at 16 kHz are lags 720 and 1920; -6 dB = 0.501187, -12 dB = 0.251189.
    impulse = np.zeros(10)
    impulse[0] = 1.0
    out = add_reflections(impulse, (Reflection(45.0, -6.0), Reflection(120.0, -12.0)), 16_000)
    assert out.size == 10 + 1920
    peaks = np.flatnonzero(np.abs(out) > 1e-12)
    assert peaks.tolist() == [0, 720, 1920]
    assert 20 * np.log10(out[720]) == pytest.approx(-6.0, abs=1e-9)
    assert 20 * np.log10(out[1920]) == pytest.approx(-12.0, abs=1e-9)
    assert out[0] == 1.0


def test_echo_of_background_speech_from_an_impulse() -> None:
    # 100 ms at 16 kHz is lag 1600; -10 dB = 0.316228.
    impulse = np.zeros(5)
    impulse[2] = 1.0
    out = add_reflections(impulse, (Reflection(100.0, -10.0),), 16_000)
    assert np.flatnonzero(out).tolist() == [2, 1602]
    assert out[1602] == pytest.approx(0.316228, abs=1e-6)


def test_filters_keep_timing_and_short_clips() -> None:
    # Zero phase: an impulse in the middle stays the largest sample where it was.
    impulse = np.zeros(2001)
    impulse[1000] = 1.0
    assert int(np.argmax(np.abs(low_pass(impulse, 3000.0, 16_000)))) == 1000
    assert int(np.argmax(np.abs(high_shelf(impulse, 4000.0, -5.0, 16_000)))) == 1000
    assert low_pass(np.ones(5), 3000.0, 16_000).size == 5   # shorter than scipy's default pad
    with pytest.raises(ValueError, match="cut-off"):
        low_pass(np.ones(5), 9000.0, 16_000)
    with pytest.raises(ValueError, match="at least one sample"):
        add_reflections(np.ones(3), (Reflection(0.01, -6.0),), 16_000)
