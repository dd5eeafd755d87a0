"""PCM16 conversions and levels: one definition for every runner, agent and builder.

Float audio in [-1, 1] becomes int16 by ``round(x * 32768)`` (half to even), clipped to
the int16 range, so a PCM16 sample read as ``k / 32768`` comes back as ``k`` exactly.
Levels are RMS in dBFS over the exact integer energy (int16 squares summed in int64), so
two callers measuring the same frame always agree to the last bit.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

_FULL_SCALE = 32768.0


def to_int16(samples: ArrayLike) -> NDArray[np.int16]:
    """Float samples (full scale 1.0) as int16, rounded half to even and clipped.

    >>> to_int16([0.5, -1.5, 1.0, 3 / 32768]).tolist()
    [16384, -32768, 32767, 3]
    """
    scaled = np.rint(np.asarray(samples, dtype=np.float64) * _FULL_SCALE)
    return np.clip(scaled, -32768, 32767).astype(np.int16)


def level_dbfs(pcm: NDArray[np.int16]) -> float:
    """RMS level of int16 samples in dBFS; ``-inf`` for digital silence or no samples.

    >>> level_dbfs(np.full(4, 16384, np.int16)), level_dbfs(np.zeros(4, np.int16))
    (-6.020599913279624, -inf)
    """
    if pcm.size == 0:
        return -math.inf
    wide = pcm.astype(np.int64)
    energy = float(wide @ wide)  # exact: int16 squares summed in int64
    mean_square = energy / (pcm.size * _FULL_SCALE ** 2)
    return 10.0 * math.log10(mean_square) if mean_square > 0 else -math.inf
