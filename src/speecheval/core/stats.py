"""Statistics shared by every benchmark: Wilson intervals, rank quantiles, bootstrap.

Conventions (fixed here so every benchmark reports the same thing):

* Shares of samples get a 95% Wilson score interval whose endpoints are exactly 0 at a
  count of 0 and exactly 1 at a count of n.
* The quantile Q(q) of N values is the ceil(qN)-th smallest value, with no interpolation.
  Values that never happened (a sample that never responded) are ``+inf``; a quantile
  that lands on one is *not reached* and is returned as ``None``.
* The percentile bootstrap resamples whole samples with replacement, 2000 times, from
  ``numpy.random.default_rng(0)``. Every call starts a fresh generator, so a statistic's
  interval does not depend on which other statistics were computed before it. The
  interval endpoints use the same rank rule on the resampled statistics (the
  ceil(0.025 B)-th and ceil(0.975 B)-th smallest).

numpy is imported by the functions over arrays, when called: a Wilson interval (a share
of counts, as every error-count result carries) needs none, and the commands that only
count (``speecheval transcripts wer``) skip numpy's import.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

Z_95 = 1.959963984540054  # standard normal quantile at 0.975
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
CONFIDENCE = 0.95


def wilson_interval(count: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """95% Wilson score interval of ``count`` successes in ``n``; ``None`` when n is 0.

    Worked example, 3 of 10: p = 0.3, z^2 = 3.841459, centre = (0.3 + 0.192073) / 1.384146
    = 0.355507, half = 1.959964 * sqrt(0.021 + 0.009604) / 1.384146 = 0.247715, so the
    interval is 0.355507 -+ 0.247715.

    >>> lo, hi = wilson_interval(3, 10)
    >>> round(lo, 6), round(hi, 6)
    (0.107791, 0.603222)
    >>> wilson_interval(0, 5)[0], wilson_interval(5, 5)[1]
    (0.0, 1.0)
    """
    if n < 0 or not 0 <= count <= n:
        raise ValueError(f"need 0 <= count <= n, got count={count}, n={n}")
    if n == 0:
        return None
    p = count / n
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    low = 0.0 if count == 0 else max(0.0, centre - half)
    high = 1.0 if count == n else min(1.0, centre + half)
    return (low, high)


def quantile_rank(q: float, n: int) -> int:
    """1-based rank ceil(qN) used by :func:`rank_quantile`, computed in exact arithmetic.

    Exact arithmetic matters: 0.07 * 100 is 7.000000000000001 in floats, whose ceiling
    would wrongly be 8.

    >>> quantile_rank(0.5, 10), quantile_rank(0.07, 100), quantile_rank(0.5, 7)
    (5, 7, 4)
    """
    if not 0 < q <= 1:
        raise ValueError(f"quantile must be in (0, 1], got {q}")
    if n <= 0:
        raise ValueError("quantile of an empty set")
    from fractions import Fraction  # here: fractions imports decimal (2 ms)

    return max(1, math.ceil(Fraction(repr(q)) * n))


def rank_quantile(values: ArrayLike, q: float) -> float | None:
    """Q(q): the ceil(qN)-th smallest value; ``None`` when it is ``+inf`` (not reached).

    >>> rank_quantile([0.4, float("inf"), 0.1, 0.3], 0.5)   # 2nd smallest of 4
    0.3
    >>> rank_quantile([0.4, float("inf"), float("inf"), 0.3], 0.9) is None  # 4th of 4
    True
    """
    import numpy as np

    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1 or array.size == 0:
        raise ValueError("rank_quantile needs a non-empty 1-D array")
    k = quantile_rank(q, array.size)
    value = float(np.partition(array, k - 1)[k - 1])
    return None if math.isinf(value) else value


@dataclass(frozen=True)
class BootstrapInterval:
    """Percentile bootstrap interval; an endpoint is ``None`` when it is not reached.

    ``resamples_used`` is below ``resamples`` when some resamples had no defined value
    (for example no pause time at all) and were skipped.
    """

    low: float | None
    high: float | None
    resamples: int
    resamples_used: int


# The last matrix drawn, when it is small, by (n, resamples, seed): a subset's statistics
# resample the same samples one after another (a scorer's two pause ratios, a latency's
# median beside a rate's ratio), and a draw of 2000 x 200 indices costs about 2 ms.
_last_drawn: dict[tuple[int, int, int], NDArray[np.int64]] = {}
_KEPT_INDICES = 1_000_000  # at most 8 MB kept


def resample_indices(n: int, resamples: int = BOOTSTRAP_RESAMPLES,
                     seed: int = BOOTSTRAP_SEED) -> NDArray[np.int64]:
    """(resamples, n) matrix of sample indices drawn with replacement, deterministic.

    The matrix is read-only: the last small one is handed out again to the next call with
    the same arguments (the same numbers: every draw starts a fresh generator)."""
    key = (n, resamples, seed)
    found = _last_drawn.get(key)
    if found is not None:
        return found
    import numpy as np

    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, n, size=(resamples, n))
    drawn.flags.writeable = False
    if drawn.size <= _KEPT_INDICES:
        _last_drawn.clear()
        _last_drawn[key] = drawn
    return drawn


def _interval_from_statistics(statistics: NDArray[np.float64], resamples: int,
                              confidence: float) -> BootstrapInterval:
    used = int(statistics.size)
    if used == 0:
        return BootstrapInterval(None, None, resamples, 0)
    from fractions import Fraction

    tail = (1 - Fraction(repr(confidence))) / 2
    low = rank_quantile(statistics, float(tail))
    high = rank_quantile(statistics, float(1 - tail))
    return BootstrapInterval(low, high, resamples, used)


def bootstrap_quantile(values: ArrayLike, q: float, resamples: int = BOOTSTRAP_RESAMPLES,
                       seed: int = BOOTSTRAP_SEED,
                       confidence: float = CONFIDENCE) -> BootstrapInterval | None:
    """Percentile bootstrap interval of :func:`rank_quantile`; ``None`` for no samples.

    ``+inf`` values (never happened) take part in every resample, so a resample whose
    quantile lands on one has an infinite statistic, and an endpoint that lands there is
    not reached.
    """
    import numpy as np

    array = np.asarray(values, dtype=np.float64)
    if array.size == 0:
        return None
    k = quantile_rank(q, array.size)
    drawn = array[resample_indices(array.size, resamples, seed)]
    statistics = np.partition(drawn, k - 1, axis=1)[:, k - 1]
    return _interval_from_statistics(statistics, resamples, confidence)


def bootstrap_ratio(numerators: ArrayLike, denominators: ArrayLike,
                    resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                    confidence: float = CONFIDENCE) -> BootstrapInterval | None:
    """Percentile bootstrap interval of a pooled ratio sum(num) / sum(den) over samples.

    Whole samples are resampled, because the units inside one sample (its pauses) are not
    independent. A resample whose denominator sums to zero has no ratio and is skipped.
    """
    import numpy as np

    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    if num.shape != den.shape or num.ndim != 1:
        raise ValueError("numerators and denominators must be 1-D arrays of equal length")
    if num.size == 0:
        return None
    indices = resample_indices(num.size, resamples, seed)
    num_sums = num[indices].sum(axis=1)
    den_sums = den[indices].sum(axis=1)
    defined = den_sums > 0
    statistics = num_sums[defined] / den_sums[defined]
    return _interval_from_statistics(statistics, resamples, confidence)


def linear_percentile(values: ArrayLike, percent: float) -> float | None:
    """Percentile with linear interpolation between order statistics; ``None`` if empty.

    This is the convention of summary tables over turns (numpy's default), unlike the
    rank rule above, which benchmarks use when a quantile must not be interpolated.

    >>> linear_percentile([1.0, 2.0, 3.0, 4.0], 50)
    2.5
    """
    import numpy as np

    array = np.asarray(values, dtype=np.float64)
    if array.size == 0:
        return None
    return float(np.percentile(array, percent))
