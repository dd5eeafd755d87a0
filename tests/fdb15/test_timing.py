"""Event-anchored stop and response latency, boundaries worked out by hand.

Times in the comments are seconds; the window is the overlap [a, b) and T the output's
end. Segments are half-open, so one ending exactly at a does not cover the onset.
"""

from __future__ import annotations

import math

import pytest

from speecheval.core.timeline import Span
from speecheval.fdb.v15.timing.trial import (
    BRIDGE_GAP_US,
    TrialTiming,
    bridge_pauses,
    event_timing,
    trial_timing,
)

WINDOW = Span.from_seconds(5.0, 6.0)     # a = 5 s, b = 6 s
T_US = 12_000_000                        # T = 12 s


def seg(start: float, end: float, open_at_end: bool = False) -> Span:
    return Span.from_seconds(start, end, open_at_end=open_at_end)


def test_stops_inside_the_overlap_and_responds() -> None:
    # speaking 1.0-5.4: stop = 5.4 - 5.0 = 0.4 s; next segment starts 7.25: 7.25 - 6.0 = 1.25 s
    timing = trial_timing([seg(1.0, 5.4), seg(7.25, 9.0)], WINDOW, T_US)
    assert timing == TrialTiming("stopped", 400_000, "responded", 1_250_000)
    assert (timing.stop_latency_s, timing.response_latency_s) == (0.4, 1.25)


def test_segment_ending_exactly_at_onset_is_not_speaking() -> None:
    # [1.0, 5.0) does not contain 5.0; the next segment starts at 6.5: 0.5 s after b
    timing = trial_timing([seg(1.0, 5.0), seg(6.5, 8.0)], WINDOW, T_US)
    assert timing == TrialTiming("not_speaking_at_onset", None, "responded", 500_000)
    assert timing.stop_value() is None and timing.response_value() == 0.5


def test_segment_starting_exactly_at_onset_covers_it() -> None:
    # [5.0, 5.3) contains 5.0: stop 0.3 s
    assert trial_timing([seg(5.0, 5.3)], WINDOW, T_US).stop_latency_us == 300_000


def test_segment_starting_exactly_at_overlap_end_responds_at_zero() -> None:
    # stopped at 5.2 (0.2 s); [6.0, 7.0) starts at b: response latency 0, not speaking through
    timing = trial_timing([seg(2.0, 5.2), seg(6.0, 7.0)], WINDOW, T_US)
    assert timing == TrialTiming("stopped", 200_000, "responded", 0)


def test_segment_ending_exactly_at_overlap_end_is_not_speaking_through() -> None:
    # [2.0, 6.0) stops at b: stop 1.0 s; nothing after: no response (+inf for quantiles)
    timing = trial_timing([seg(2.0, 6.0)], WINDOW, T_US)
    assert timing == TrialTiming("stopped", 1_000_000, "no_response", None)
    assert timing.response_value() == math.inf


def test_speaking_through_the_end() -> None:
    # [2.0, 7.5) runs across b = 6: stop 7.5 - 5.0 = 2.5 s (after the overlap ended), and
    # no re-entry to time, although a later segment exists
    timing = trial_timing([seg(2.0, 7.5), seg(8.0, 9.0)], WINDOW, T_US)
    assert timing == TrialTiming("stopped", 2_500_000, "speaking_through_end", None)
    assert timing.response_value() is None


def test_restarting_inside_the_overlap_and_running_past_its_end() -> None:
    # stops at 5.2 (0.2 s) but starts again at 5.8 and runs to 7.0: speaking at b
    timing = trial_timing([seg(2.0, 5.2), seg(5.8, 7.0)], WINDOW, T_US)
    assert timing == TrialTiming("stopped", 200_000, "speaking_through_end", None)


def test_output_ending_while_speaking_is_right_censored() -> None:
    # [2.0, 12.0) still running at T = 12: the stop was not observed (+inf), and the
    # system was speaking through b
    timing = trial_timing([seg(2.0, 12.0, open_at_end=True)], WINDOW, T_US)
    assert timing == TrialTiming("right_censored", None, "speaking_through_end", None)
    assert timing.stop_value() == math.inf


def test_window_ending_at_or_after_the_output_end() -> None:
    # T = 6 s = b: the response cannot be observed; [4.0, 5.5) stopped 0.5 s after a
    timing = trial_timing([seg(4.0, 5.5)], WINDOW, 6_000_000)
    assert timing == TrialTiming("stopped", 500_000, "right_censored", None)
    # T = 5 s = a: nothing after the onset was observed at all
    early = trial_timing([seg(4.0, 5.0, open_at_end=True)], WINDOW, 5_000_000)
    assert early == TrialTiming("right_censored", None, "right_censored", None)


def test_silent_output() -> None:
    assert trial_timing([], WINDOW, T_US) == TrialTiming("not_speaking_at_onset", None,
                                                         "no_response", None)


def test_statuses_and_latencies_must_agree() -> None:
    with pytest.raises(ValueError, match="exactly when"):
        TrialTiming("stopped", None, "no_response", None)
    with pytest.raises(ValueError, match="exactly when"):
        TrialTiming("right_censored", None, "no_response", 5)
    with pytest.raises(ValueError, match="unknown stop status"):
        TrialTiming("paused", None, "no_response", None)


def test_pauses_up_to_half_a_second_are_bridged() -> None:
    # gaps: 5.0 -> 5.5 is exactly 0.5 s (joined), 6.0 -> 6.500001 is 0.500001 s (kept)
    segments = [seg(1.0, 5.0), seg(5.5, 6.0), seg(6.500001, 9.0, open_at_end=True)]
    assert bridge_pauses(segments) == [seg(1.0, 6.0), seg(6.500001, 9.0, open_at_end=True)]
    # the joined span takes the open end of its last piece
    assert bridge_pauses([seg(1.0, 2.0), seg(2.3, 12.0, open_at_end=True)]) == [
        seg(1.0, 12.0, open_at_end=True)]
    assert bridge_pauses([]) == []


def test_a_sentence_pause_is_not_a_stop() -> None:
    # a system that never yields: speech 2.0-7.1, a 0.22 s pause, speech 7.32-10.0.
    # Unbridged the pause reads as a stop 7.1 - 5.0 = 2.1 s after the onset; bridged the
    # system speaks on to 10.0: stop 10.0 - 5.0 = 5.0 s, and through the overlap end
    event = event_timing([seg(2.0, 7.1), seg(7.32, 10.0)], WINDOW, T_US)
    assert event.unbridged == TrialTiming("stopped", 2_100_000, "speaking_through_end", None)
    assert event.bridged == TrialTiming("stopped", 5_000_000, "speaking_through_end", None)
    assert event.bridge_gap_us == BRIDGE_GAP_US == 500_000
    assert (event.stop_changed, event.response_changed) == (True, False)


def test_a_pause_across_the_overlap_end_is_no_re_entry() -> None:
    # speech 2.0-5.8, 0.4 s pause, 6.2-8.0: unbridged it stops 0.8 s after a and
    # "responds" 0.2 s after b; bridged it spoke through b and stopped at 8.0 (3.0 s)
    event = event_timing([seg(2.0, 5.8), seg(6.2, 8.0)], WINDOW, T_US)
    assert event.unbridged == TrialTiming("stopped", 800_000, "responded", 200_000)
    assert event.bridged == TrialTiming("stopped", 3_000_000, "speaking_through_end", None)
    assert (event.stop_changed, event.response_changed) == (True, True)
