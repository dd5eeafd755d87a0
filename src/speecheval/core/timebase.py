"""Microsecond time base.

Annotations and ASR output carry float noise (6.32000000000005 against 6.32). Every time
is rounded to the microsecond before any comparison, so comparisons are done on integer
microseconds and only converted back to seconds for output.

Every command that reads a time imports this module, most of them without needing an
array, so numpy is imported by :func:`to_us_array` alone, when it is called.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

US_PER_S = 1_000_000
# The longest audio a setting may ask for (a scenario turn, a delay, a session, a mock
# reply): one hour. Longer values are refused up front instead of exhausting memory.
MAX_AUDIO_MS = 3_600_000.0


def to_us(seconds: float) -> int:
    """Seconds to integer microseconds, rounding half to even.

    >>> to_us(6.32000000000005) == to_us(6.32)
    True
    >>> to_us(0.0000015)
    2
    """
    if not math.isfinite(seconds):
        raise ValueError(f"time is not finite: {seconds!r}")
    return round(seconds * US_PER_S)


def from_us(microseconds: int) -> float:
    """Integer microseconds to seconds.

    >>> from_us(6320000)
    6.32
    """
    return microseconds / US_PER_S


def round_us(seconds: float) -> float:
    """Round seconds to the microsecond.

    >>> round_us(6.32000000000005)
    6.32
    """
    return from_us(to_us(seconds))


def to_us_array(seconds: ArrayLike) -> NDArray[np.int64]:
    """:func:`to_us` over an array: the same product, rounded half to even the same way.

    >>> to_us_array([6.32000000000005, 0.0000015, 0.0000025]).tolist()
    [6320000, 2, 2]
    >>> [to_us(x) for x in (6.32000000000005, 0.0000015, 0.0000025)]
    [6320000, 2, 2]
    """
    import numpy as np  # here, so that the scalar functions cost no numpy import

    values = np.asarray(seconds, dtype=np.float64)
    if not np.isfinite(values).all():
        bad = values[~np.isfinite(values)].ravel()[0]
        raise ValueError(f"time is not finite: {float(bad)!r}")
    return np.rint(values * US_PER_S).astype(np.int64)
