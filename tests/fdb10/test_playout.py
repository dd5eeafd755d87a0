"""Playout and eligibility by hand: small traces whose positions are worked out below."""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.fdb.common.eligibility import (
    Verdict,
    check_dataset,
    check_pacing,
    check_rate,
    check_window,
)
from speecheval.fdb.common.playout import Arrival, render, resampler, schedule, to_tree_rate

RATE = 16_000  # 16 samples per millisecond


def test_fifo_never_earlier_than_receipt_early_late_and_overlapping_chunks() -> None:
    arrivals = [
        Arrival(0.010, 0, 160),     # at 10 ms = sample 160: plays [160, 320)
        Arrival(0.015, 160, 160),   # arrives at 240 while A plays: waits, [320, 480)
        Arrival(0.100, 320, 80),    # late, after a gap: at its receipt, [1600, 1680)
        Arrival(0.1002, 400, 80),   # round(1603.2) = 1603, but C ends at 1680: [1680, 1760)
    ]
    playout = schedule(arrivals, RATE, duration_s=0.105)   # T = 1680 samples
    assert [(p.start, p.end, p.offset) for p in playout.placed] == [
        (160, 320, 0), (320, 480, 160), (1600, 1680, 320), (1680, 1760, 400)]
    assert playout.window_samples == 1680
    # D lies wholly at or after T: 80 samples = 5 ms excluded; C ends exactly at T
    assert playout.after_t_samples == 80 and playout.after_t_s == 0.005
    received = np.arange(1, 481, dtype=np.int16)
    out = render(playout, received)
    assert out.shape == (1680,)
    assert not out[:160].any() and not out[480:1600].any()
    np.testing.assert_array_equal(out[160:480], received[:320])
    np.testing.assert_array_equal(out[1600:1680], received[320:400])


def test_a_clear_drops_the_queued_audio_and_later_audio_starts_after_it() -> None:
    arrivals = [
        Arrival(0.0, 0, 1600),        # [0, 1600)
        Arrival(0.010, 1600, 1600),   # queued behind it: [1600, 3200)
        Arrival(0.050, drop=True),    # at 800: A keeps [0, 800), B is dropped whole
        Arrival(0.060, 3200, 160),    # at 960 (the queue now ends at 800): [960, 1120)
    ]
    playout = schedule(arrivals, RATE, duration_s=1.0)
    assert [(p.start, p.length, p.offset) for p in playout.placed] == [
        (0, 800, 0), (960, 160, 3200)]
    assert playout.dropped_samples == 800 + 1600 and playout.dropped_s == 0.15


def test_a_clear_after_everything_played_drops_nothing() -> None:
    playout = schedule([Arrival(0.0, 0, 160), Arrival(0.5, drop=True),
                        Arrival(0.51, 160, 160)], RATE, 1.0)
    assert playout.dropped_samples == 0
    assert [(p.start, p.length) for p in playout.placed] == [(0, 160), (8160, 160)]


def test_resampling_gives_exactly_round_t_times_16000_samples() -> None:
    t = 1.23456   # round(1.23456 * 16000) = round(19752.96) = 19753
    for rate in (16_000, 24_000, 44_100, 48_000):
        audio = np.zeros(round(t * rate), dtype=np.int16)
        assert to_tree_rate(audio, rate, t).shape == (19753,)
    tone = (8000 * np.sin(2 * np.pi * 440 * np.arange(48_000) / 48_000)).astype(np.int16)
    down = to_tree_rate(tone, 48_000, 1.0)
    expected = 8000 * np.sin(2 * np.pi * 440 * np.arange(16_000) / 16_000)
    assert np.max(np.abs(down[200:-200] - expected[200:-200])) < 40   # soxr VHQ: ~-50 dB
    assert resampler(48_000)["name"] == "soxr" and resampler(16_000)["name"] == "none"


def _append(seq: int, start_late_s: float, end_late_s: float) -> dict[str, float | int]:
    deadline = seq * 0.08
    return {"seq": seq, "deadline_s": round(deadline, 6),
            "start_s": round(deadline + start_late_s, 6),
            "end_s": round(deadline + end_late_s, 6)}


@pytest.mark.parametrize(("start_late", "end_late", "ok"), [
    (0.080, 0.080, True),       # exactly at the tolerance
    (0.080001, 0.080001, False),  # 1 us past it
    (0.0, 0.080001, False),     # started on time, completed 1 us too late
    (0.003, 0.004, True),
])
def test_pacing_tolerance_edges(start_late: float, end_late: float, ok: bool) -> None:
    verdict = Verdict()
    check_pacing([_append(0, 0, 0), _append(7, start_late, end_late)], 2, verdict)
    assert (verdict.reasons == []) is ok
    assert verdict.pacing["max_end_late_s"] == pytest.approx(end_late)


def test_pacing_counts_missing_packets() -> None:
    verdict = Verdict()
    check_pacing([_append(0, 0, 0)], 13, verdict)
    assert verdict.reasons == ["input_pacing"] and verdict.details == [
        "1 of 13 packets were sent"]


def test_an_error_at_exactly_t_is_in_the_window_and_just_after_is_a_diagnostic() -> None:
    at_t, after_t = Verdict(), Verdict()
    check_window([{"t_s": 2.5, "reason": "agent error event: x"}], 2.5, at_t)
    check_window([{"t_s": 2.500001, "reason": "agent error event: x"}], 2.5, after_t)
    assert at_t.reasons == ["window_error"]
    assert after_t.reasons == [] and after_t.faults_after_t == [
        {"t_s": 2.500001, "reason": "agent error event: x"}]


def test_output_rate_declared_and_constant() -> None:
    for declared, rates, reasons in [(16000, [None, 16000], []),
                                     (16000, [16000, 24000], ["output_rate"]),
                                     (None, [], ["output_rate"]),
                                     (0, [], ["output_rate"])]:
        verdict = Verdict()
        check_rate(declared, rates, verdict)
        assert verdict.reasons == reasons, (declared, rates)


def test_dataset_hashes_must_match() -> None:
    verdict = Verdict()
    check_dataset({"input.wav": "a", "pause.json": "b"}, {"input.wav": "a", "pause.json": "c"},
                  verdict)
    assert verdict.reasons == ["dataset_hash_mismatch"]
    assert verdict.details == ["dataset file(s) differ from the run's: pause.json"]
