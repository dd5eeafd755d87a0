"""Cases added for mutants of ``fdb/v15/timing/trial.py`` that the timing tests let survive
(docs/testing.md, "Surviving mutants"): each refusal's message in full, and the quantile
values of a stopped and of a right-censored response."""

from __future__ import annotations

import math

import pytest

from speecheval.fdb.v15.timing.trial import TrialTiming


@pytest.mark.parametrize(("fields", "message"), [
    (("stopped", 1, "late", None), "unknown response status 'late'"),
    (("right_censored", 5, "no_response", None),
     "a stop latency is given exactly when the status is 'stopped'"),
    (("stopped", 1, "no_response", 5),
     "a response latency is given exactly when the status is 'responded'"),
    (("stopped", -3, "no_response", None), "latencies are never negative, got -3 us"),
])
def test_refusals_say_what_is_wrong(fields: tuple[str, int | None, str, int | None],
                                    message: str) -> None:
    with pytest.raises(ValueError) as refused:
        TrialTiming(*fields)
    assert str(refused.value) == message


def test_quantile_values() -> None:
    # stopped after 250_000 us: 0.25 s; a right-censored response has nothing to time
    # (None), a missing one is +inf
    censored = TrialTiming("stopped", 250_000, "right_censored", None)
    assert censored.stop_value() == 0.25 and censored.response_value() is None
    missing = TrialTiming("right_censored", None, "no_response", None)
    assert missing.stop_value() == math.inf and missing.response_value() == math.inf
