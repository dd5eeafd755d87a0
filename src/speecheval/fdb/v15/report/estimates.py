"""The page's cells from what ``fdb15 score`` wrote: each figure with its interval.

Why a module of its own: the leaderboard and the latency tables print the same numbers
from the same records (``timing.json``'s latency quantiles and Wilson shares,
``behaviour.json``'s shares), and the leaderboard also needs them as numbers to decide
which cell is best. One reader keeps the text and the number from disagreeing.
A quantile that is not reached (it lands on censored or missing trials, counted at
``+inf``) reads ``not reached`` and is ``math.inf`` as a number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ....report.leaderboard_table import Estimate
from ....report.numbers import fixed, percent

NOT_REACHED = "not reached"


def _end(value: float | None, reached: bool | None) -> float:
    return float(value) if value is not None and reached is not False else math.inf


def _seconds(value: float) -> str:
    return fixed(value, 3) if math.isfinite(value) else "inf"


def median_estimate(quantiles: Mapping[str, Any], trials: int) -> Estimate:
    """The median of a ``latency_quantiles`` record: ``0.440 s [0.400, 0.520]``; the
    coverage is the trials counted (with a value or censored) of the scenario's."""
    coverage = f"{quantiles['n']}/{trials}"
    median = quantiles["median"]
    if quantiles["n"] == 0 or median.get("reached") is None:
        return Estimate("n/a", None, None, coverage)
    value = _end(median["value"], median["reached"])
    interval = median.get("interval")
    bounds = None
    text = NOT_REACHED if math.isinf(value) else fixed(value, 3, unit=" s")
    if interval is not None:
        low = _end(interval["low"], interval.get("low_reached"))
        high = _end(interval["high"], interval.get("high_reached"))
        bounds = (low, high)
        text += f" [{_seconds(low)}, {_seconds(high)}]"
    return Estimate(text, value, bounds, coverage)


def p90_text(quantiles: Mapping[str, Any]) -> str:
    p90 = quantiles.get("p90") or {}
    if quantiles.get("n", 0) == 0 or p90.get("reached") is None:
        return "n/a"
    return fixed(p90["value"], 3, unit=" s") if p90["reached"] else NOT_REACHED


def share_estimate(share: Mapping[str, Any], coverage: str | None = None) -> Estimate:
    """A share with its Wilson interval, ``75.0% [30.1%, 95.4%]``, and its selected
    bounds where recorded; the coverage defaults to ``count/n``."""
    value = share.get("value")
    interval = share.get("interval")
    text = percent(value, 1)
    bounds = None
    if interval is not None:
        bounds = (float(interval[0]), float(interval[1]))
        text += f" [{percent(bounds[0], 1)}, {percent(bounds[1], 1)}]"
    selected = share.get("selected_bounds")
    if selected is not None and list(selected) != [value, value]:
        text += f" bounds {percent(selected[0], 1)}-{percent(selected[1], 1)}"
    return Estimate(text, None if value is None else float(value), bounds,
                    coverage or f"{share.get('count', 0)}/{share.get('n', 0)}")


def mean_estimate(record: Mapping[str, Any]) -> str:
    """A ``{"value", "interval"}`` record (a mean, or any estimate with an interval) as
    text; an interval may be a pair or a bootstrap record with ``low`` and ``high``."""
    value = record.get("value")
    if value is None:
        return "n/a"
    text = fixed(float(value), 3)
    interval = record.get("interval")
    if isinstance(interval, Mapping):
        interval = [interval.get("low"), interval.get("high")]
    if isinstance(interval, list | tuple) and len(interval) == 2:
        low, high = (_seconds(float(v)) if v is not None else "inf" for v in interval)
        text += f" [{low}, {high}]"
    return text
