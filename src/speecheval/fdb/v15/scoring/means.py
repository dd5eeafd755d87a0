"""Means as the FDB v1.5 paper's tables report them, beside the medians.

The paper's Table 3 gives the average stop and response latency per scenario and its
Table 1 the mean and standard deviation; speecheval's headline is the median (a censored
or missing latency sits at ``+inf`` and a median stays defined). A mean can only be taken
over latencies that happened, so :class:`MeanSummary` is over the finite values and says
how many there were. Its interval is the percentile bootstrap of the mean over whole
trials (:func:`speecheval.core.stats.bootstrap_ratio` of the values over ones: 2000
resamples, seed 0, the rank rule), the interval every other summary of ``fdb15 score``
uses; the standard deviation is the sample one (``ddof=1``), as Table 1's ``±``; the
median beside it is the rank quantile ``ceil(N/2)`` of the same values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ....core.stats import BootstrapInterval, bootstrap_ratio, rank_quantile

MEAN_INTERVAL = ("percentile bootstrap of the mean over whole trials, 2000 resamples, "
                 "seed 0, rank quantiles ceil(0.025B) and ceil(0.975B)")


@dataclass(frozen=True)
class MeanSummary:
    """Mean (with its bootstrap interval), sample SD and median of finite seconds."""

    n: int
    mean: float | None
    sd: float | None
    interval: BootstrapInterval | None
    median: float | None

    @classmethod
    def of(cls, values_s: Sequence[float]) -> MeanSummary:
        values = np.asarray(values_s, dtype=np.float64)
        if not np.all(np.isfinite(values)):
            raise ValueError("a mean is taken over latencies that happened (finite values)")
        n = int(values.size)
        if n == 0:
            return cls(0, None, None, None, None)
        sd = float(np.std(values, ddof=1)) if n > 1 else None
        return cls(n, float(np.mean(values)), sd, bootstrap_ratio(values, np.ones(n)),
                   rank_quantile(values, 0.5))

    def report_dict(self) -> dict[str, Any]:
        interval = (None if self.interval is None else
                    {"method": "percentile_bootstrap", "low": self.interval.low,
                     "high": self.interval.high, "resamples": self.interval.resamples})
        return {"n": self.n, "mean": self.mean, "sd": self.sd, "mean_interval": interval,
                "median": self.median}
