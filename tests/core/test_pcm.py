"""core.pcm: the one int16 conversion and dBFS level, checked against the copies it replaced."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from speecheval.core.pcm import level_dbfs, to_int16

floats = arrays(np.float32, st.integers(0, 64),
                elements=st.floats(-1.5, 1.5, width=32, allow_nan=False))


@settings(max_examples=200, deadline=None)
@given(floats)
def test_to_int16_is_every_former_copy(samples: np.ndarray) -> None:
    # the session runner and the mock clipped first, the local voice and the resampler
    # rounded first; on finite input all of them give the same integers
    clip_first = np.round(np.clip(samples, -1.0, 32767 / 32768) * 32768).astype(np.int16)
    round_first = np.clip(np.rint(samples.astype(np.float64) * 32768.0), -32768, 32767)
    assert np.array_equal(to_int16(samples), clip_first)
    assert np.array_equal(to_int16(samples), round_first.astype(np.int16))


def test_pcm_read_as_float_comes_back_exactly() -> None:
    pcm = np.array([-32768, -1, 0, 1, 32767], dtype=np.int16)
    assert np.array_equal(to_int16(pcm / 32768.0), pcm)


def test_level_by_hand() -> None:
    # a full-scale square wave has RMS 1 (0 dBFS); half of it is 20 log10(0.5) = -6.0206
    assert level_dbfs(np.array([32767, -32768], dtype=np.int16)) == 10 * math.log10(
        (32767**2 + 32768**2) / 2 / 32768**2)
    assert round(level_dbfs(np.full(8, 16384, np.int16)), 4) == -6.0206
    assert level_dbfs(np.zeros(3, np.int16)) == -math.inf
    assert level_dbfs(np.zeros(0, np.int16)) == -math.inf
