"""Absolute time errors summarised: mean, median, P90, P95 and tolerance hit rates.

Percentiles use :func:`speecheval.core.stats.linear_percentile` (numpy's default: linear
interpolation between order statistics, so the median of an even count is the mean of
the two middle values). Errors are kept in integer microseconds, so a hit (error <=
tolerance) is decided exactly; the summary is in seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core.results import FieldwiseSum, Result
from ...core.stats import linear_percentile
from ...core.timebase import from_us, to_us

TOLERANCES_S: tuple[float, ...] = (0.25, 0.5, 1.0)


@dataclass(frozen=True, eq=False)
class ErrorValues(FieldwiseSum, Result, kind="transcripts.error_values"):
    """Absolute errors in µs of some items (tokens, turns, segment pairs); ``+`` pools them."""

    errors_us: NDArray[np.int64]

    def __post_init__(self) -> None:
        if self.errors_us.ndim != 1 or (self.errors_us.size and self.errors_us.min() < 0):
            raise ValueError("errors must be a 1-D array of non-negative microseconds")

    @classmethod
    def of(cls, values_us: Sequence[int] | NDArray[np.int64]) -> ErrorValues:
        """From any sequence of microsecond errors."""
        return cls(np.asarray(values_us, dtype=np.int64).reshape(-1))

    @property
    def count(self) -> int:
        """Number of items."""
        return int(self.errors_us.size)

    def hits(self, tolerance_s: float) -> int:
        """Items with error <= tolerance."""
        return int(np.count_nonzero(self.errors_us <= to_us(tolerance_s)))

    def summary(self) -> dict[str, Any]:
        """Mean, median, P90, P95 (seconds) and hit rates; ``None`` with no items.

        Hand check: errors 0.1, 0.2, 0.4, 1.3 s. Mean 2.0 / 4 = 0.5; median (0.2 + 0.4) / 2
        = 0.3; P90 at rank 0.9 * 3 = 2.7: 0.4 + 0.7 * 0.9 = 1.03; P95 at 2.85: 0.4 + 0.85 *
        0.9 = 1.165; hits at 0.25 s: 2/4, at 0.5 s: 3/4, at 1.0 s: 3/4.

        >>> s = ErrorValues.of([100_000, 200_000, 400_000, 1_300_000]).summary()
        >>> s["mean_s"], round(s["median_s"], 9), round(s["p90_s"], 9), round(s["p95_s"], 9)
        (0.5, 0.3, 1.03, 1.165)
        >>> s["hit_rate"]
        {'0.25': 0.5, '0.5': 0.75, '1.0': 0.75}
        """
        seconds = self.errors_us.astype(np.float64) / 1e6
        empty = self.count == 0
        return {
            "count": self.count,
            "mean_s": None if empty else from_us(int(self.errors_us.sum())) / self.count,
            "median_s": linear_percentile(seconds, 50),
            "p90_s": linear_percentile(seconds, 90),
            "p95_s": linear_percentile(seconds, 95),
            "hits": {_key(t): self.hits(t) for t in TOLERANCES_S},
            "hit_rate": {_key(t): None if empty else self.hits(t) / self.count
                         for t in TOLERANCES_S},
        }


def _key(tolerance_s: float) -> str:
    return repr(float(tolerance_s))


def empty_errors() -> ErrorValues:
    """No items."""
    return ErrorValues(np.zeros(0, dtype=np.int64))
