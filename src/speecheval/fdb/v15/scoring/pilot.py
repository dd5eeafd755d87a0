"""The paper's Table 1 pilot over a scored tree: on the clean (context-only) sessions,
the output length and the response latency after the context turn, mean ± SD as the
paper gives them (with the median and the mean's bootstrap interval, :mod:`.means`),
one row per scenario and one over all of them.

A trial enters the pilot when its folder holds clean_output.wav; the rows count the
trials left out and why. A tree without any clean session has no rows and says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..dataset.layout import DECLARED_SIZES
from ..timing.clean_pilot import PILOT_RESPONSE_STATUSES, CleanPilot
from .means import MeanSummary

PILOT_KIND = "table1_pilot"
NOT_RECORDED_NOTE = ("no trial folder holds clean_output.wav: the clean (context-only) "
                     "sessions were not recorded, so there is no Table 1 pilot")


def _row(pilots: Sequence[CleanPilot], trials: int) -> dict[str, Any]:
    lengths = [p.output_length_us / 1e6 for p in pilots if p.output_length_us is not None]
    latencies = [p.response_latency_us / 1e6 for p in pilots
                 if p.response_latency_us is not None]
    return {"trials": trials, "clean_sessions": len(pilots),
            "output_length_s": MeanSummary.of(lengths).report_dict(),
            "output_length_censored": sum(p.output_length_censored for p in pilots),
            "response_latency_s": MeanSummary.of(latencies).report_dict(),
            "response_statuses": {status: sum(p.response_status == status for p in pilots)
                                  for status in PILOT_RESPONSE_STATUSES}}


def table1_pilot(trials: Sequence[tuple[str, CleanPilot | None]]) -> dict[str, Any]:
    """``timing.json``'s ``table1_pilot`` from each trial's (scenario, pilot or None):
    ``available``, then the rows (or the note)."""
    if not any(pilot is not None for _, pilot in trials):
        return {"available": False, "note": NOT_RECORDED_NOTE}
    rows = {}
    for name in DECLARED_SIZES:
        mine = [pilot for scenario, pilot in trials if scenario == name]
        if mine:
            rows[name] = _row([p for p in mine if p is not None], len(mine))
    rows["all"] = _row([p for _, p in trials if p is not None], len(trials))
    return {"available": True, "rows": rows}
