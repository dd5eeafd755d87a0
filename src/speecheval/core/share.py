"""A share of samples with its confidence interval: the one shape every family reports.

"3 of 10 sessions passed" is ``Share(count=3, n=10, ...)``; ``value`` is ``count / n``
(``None`` for ``n == 0``, never 0: the rule of :func:`fraction`, which every rate of a
count over a count uses) and ``interval`` the 95% interval of that share by
``method`` (``"wilson"``, see :func:`speecheval.core.stats.wilson_interval`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from .results import Result
from .stats import CONFIDENCE, wilson_interval


def fraction(part: float, whole: float) -> float | None:
    """``part / whole``; ``None`` when ``whole`` is 0: a rate over nothing is undefined, not 0.

    >>> fraction(3, 4), fraction(0, 0)
    (0.75, None)
    """
    return part / whole if whole else None


@dataclass(frozen=True)
class Share(Result, kind="core.share"):
    """``count`` of ``n`` with an interval on ``count / n``.

    >>> s = Share.wilson(3, 10)
    >>> s.value, [round(x, 6) for x in s.interval]
    (0.3, [0.107791, 0.603222])
    >>> Share.wilson(0, 0).value is None and Share.wilson(0, 0).interval is None
    True
    >>> Share(4, 3, None, "wilson")
    Traceback (most recent call last):
    ...
    ValueError: a share needs 0 <= count <= n, got 4 of 3
    """

    count: int
    n: int
    interval: tuple[float, float] | None
    method: str
    confidence: float = CONFIDENCE

    _derived: ClassVar[tuple[str, ...]] = ("value",)

    def __post_init__(self) -> None:
        if self.n < 0 or not 0 <= self.count <= self.n:
            raise ValueError(f"a share needs 0 <= count <= n, got {self.count} of {self.n}")
        if self.n == 0 and self.interval is not None:
            raise ValueError("a share of no samples has no interval")
        if self.interval is not None:
            low, high = self.interval
            if not (math.isfinite(low) and math.isfinite(high) and 0.0 <= low <= high <= 1.0):
                raise ValueError(f"share interval must satisfy 0 <= low <= high <= 1, got "
                                 f"{self.interval}")
        if not 0.0 < self.confidence < 1.0:
            raise ValueError(f"confidence must lie in (0, 1), got {self.confidence}")

    @classmethod
    def wilson(cls, count: int, n: int) -> Share:
        """The share with its 95% Wilson score interval (``None`` when ``n`` is 0)."""
        return cls(count, n, wilson_interval(count, n), "wilson", CONFIDENCE)

    @property
    def value(self) -> float | None:
        """``count / n``; ``None`` when there are no samples."""
        return fraction(self.count, self.n)
