"""Examples of every fdb15 result kind, for the round-trip test in tests/core/test_results.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from speecheval.fdb.v15.scoring.trials import ScenarioTiming
from speecheval.fdb.v15.timing.trial import TrialTiming

latency_us = st.integers(0, 60_000_000)

trial_timing = st.builds(
    lambda stop, stop_us, response, response_us: TrialTiming(
        stop, stop_us if stop == "stopped" else None,
        response, response_us if response == "responded" else None),
    st.sampled_from(["stopped", "not_speaking_at_onset", "right_censored"]), latency_us,
    st.sampled_from(["responded", "speaking_through_end", "no_response", "right_censored"]),
    latency_us)

scenario_timing = st.builds(ScenarioTiming.of, st.integers(0, 200),
                            st.lists(trial_timing, max_size=6))


def _any(strategy: st.SearchStrategy[Any]) -> Callable[[str], st.SearchStrategy[Any]]:
    return lambda prefix: strategy


FDB15_EXAMPLES: dict[str, Callable[[str], st.SearchStrategy[Any]]] = {
    "fdb15.trial_timing": _any(trial_timing),
    "fdb15.scenario_timing": _any(scenario_timing),
}
