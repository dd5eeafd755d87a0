"""The figures beside the v1.5 headline, worked out by hand: the user's speech end, the
Table 1 pilot of a clean session, the mean with its interval and the official per-file
response figure. Times in the comments are seconds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from speecheval.core.timeline import Span
from speecheval.fdb.v15.scoring.means import MeanSummary
from speecheval.fdb.v15.scoring.pilot import table1_pilot
from speecheval.fdb.v15.timing.clean_pilot import CleanPilot, clean_pilot
from speecheval.fdb.v15.timing.official import OfficialTiming
from speecheval.fdb.v15.timing.user_end import context_end, overlap_user_end

WINDOW = Span.from_seconds(5.0, 6.0)


def seg(start: float, end: float, open_at_end: bool = False) -> Span:
    return Span.from_seconds(start, end, open_at_end=open_at_end)


def test_user_end_joins_the_users_pauses_and_needs_speech_in_the_window() -> None:
    # context 0.5-2.0, overlap 5.1-5.5 and 5.9-6.2 (a 0.4 s pause, joined at <= 0.6 s)
    user = [seg(0.5, 2.0), seg(5.1, 5.5), seg(5.9, 6.2)]
    assert overlap_user_end(user, WINDOW) == 6_200_000
    # a 0.7 s pause is not joined: the piece starting at 6.2 is after the window
    assert overlap_user_end([seg(5.1, 5.5), seg(6.2, 6.6)], WINDOW) == 5_500_000
    # Silero heard only the context (a quiet background line missed): no anchor
    assert overlap_user_end([seg(0.5, 2.0)], WINDOW) is None
    assert context_end([seg(0.5, 1.0), seg(1.5, 2.25)]) == 2_250_000
    assert context_end([]) is None


def test_clean_pilot_response_and_output_length() -> None:
    # context 0.3-1.0 and 1.4-2.0 (joined): ends at 2.0. Reply 3.1-5.0, 0.3 s pause,
    # 5.3-8.0: response 3.1 - 2.0 = 1.1 s, length 8.0 - 3.1 = 4.9 s
    user = [seg(0.3, 1.0), seg(1.4, 2.0)]
    pilot = clean_pilot(user, [seg(3.1, 5.0), seg(5.3, 8.0)], 12_000_000)
    assert pilot == CleanPilot(2_000_000, "responded", 1_100_000, 4_900_000, False)
    assert pilot.report_dict() == {
        "clean_context_end_s": 2.0, "clean_response_status": "responded",
        "clean_response_latency_s": 1.1, "clean_output_length_s": 4.9,
        "clean_output_length_censored": False}
    # talking over the context's end: no latency; the reply is counted from 2.0 to 4.0
    over = clean_pilot(user, [seg(1.5, 4.0)], 12_000_000)
    assert over == CleanPilot(2_000_000, "speaking_through_end", None, 2_000_000, False)
    # still speaking when the file ends at 12: the length 12 - 2.5 = 9.5 s is a lower bound
    open_end = clean_pilot(user, [seg(2.5, 12.0, open_at_end=True)], 12_000_000)
    assert open_end == CleanPilot(2_000_000, "responded", 500_000, 9_500_000, True)
    assert clean_pilot([], [seg(2.5, 4.0)], 12_000_000) == CleanPilot(
        None, "no_user_speech", None, None, False)
    assert clean_pilot(user, [], 12_000_000) == CleanPilot(
        2_000_000, "no_response", None, None, False)


def test_mean_sd_median_and_the_bootstrap_interval_of_the_mean() -> None:
    # 1, 2, 4: mean 7/3; sd sqrt(((4/3)^2 + (1/3)^2 + (5/3)^2) / 2) = sqrt(7/3); the
    # median is the ceil(3/2) = 2nd smallest, 2
    summary = MeanSummary.of([1.0, 2.0, 4.0])
    assert summary.mean == pytest.approx(7 / 3, abs=1e-12)
    assert summary.sd == pytest.approx(math.sqrt(7 / 3), abs=1e-12)
    assert summary.median == 2.0
    # the interval, recomputed with numpy alone: 2000 resampled means of seed 0, the
    # 50th and the 1950th smallest (ceil(0.025 * 2000), ceil(0.975 * 2000))
    drawn = np.array([1.0, 2.0, 4.0])[np.random.default_rng(0).integers(0, 3, size=(2000, 3))]
    means = np.sort(drawn.sum(axis=1) / 3)
    assert summary.interval is not None
    assert (summary.interval.low, summary.interval.high) == (means[49], means[1949])
    assert summary.report_dict()["mean_interval"]["resamples"] == 2000
    one = MeanSummary.of([0.25])
    assert (one.mean, one.sd, one.median) == (0.25, None, 0.25)
    assert MeanSummary.of([]).report_dict() == {"n": 0, "mean": None, "sd": None,
                                                "mean_interval": None, "median": None}
    with pytest.raises(ValueError, match="finite"):
        MeanSummary.of([1.0, math.inf])


def test_official_response_gaps_are_the_interval_lengths() -> None:
    # context end 1.532 -> next output start 2.001: 0.469; overlap end 6.03 -> 7.5: 1.47
    official = OfficialTiming([[5.0, 6.03]], [[1.532, 2.001], [6.03, 7.5]])
    assert official.response_gaps_s() == [0.469, 1.47]
    assert OfficialTiming([], []).response_gaps_s() == []


def test_table1_pilot_rows_and_its_absence() -> None:
    # one clean session per scenario: lengths 4.9 and 6.1 s over all, mean 5.5, sd
    # sqrt((0.6^2 + 0.6^2) / 1) = 0.848528...; one trial without a clean session
    first = CleanPilot(2_000_000, "responded", 1_100_000, 4_900_000, False)
    second = CleanPilot(1_000_000, "responded", 1_300_000, 6_100_000, False)
    pilot = table1_pilot([("user_interruption", first), ("user_interruption", None),
                          ("user_backchannel", second)])
    assert pilot["available"] is True
    assert list(pilot["rows"]) == ["user_interruption", "user_backchannel", "all"]
    interruption = pilot["rows"]["user_interruption"]
    assert (interruption["trials"], interruption["clean_sessions"]) == (2, 1)
    every = pilot["rows"]["all"]
    assert every["output_length_s"]["mean"] == pytest.approx(5.5, abs=1e-12)
    assert every["output_length_s"]["sd"] == pytest.approx(0.848528137, abs=1e-9)
    assert every["response_latency_s"]["mean"] == pytest.approx(1.2, abs=1e-12)
    assert every["response_statuses"]["responded"] == 2
    assert table1_pilot([("user_interruption", None)]) == {
        "available": False,
        "note": "no trial folder holds clean_output.wav: the clean (context-only) sessions "
                "were not recorded, so there is no Table 1 pilot"}
