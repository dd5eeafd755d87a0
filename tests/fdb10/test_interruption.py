"""User interruption outcomes from hand-written speech segments."""

from __future__ import annotations

from pathlib import Path

import pytest

from speecheval.core.timebase import to_us
from speecheval.core.timeline import Span, Spans
from speecheval.fdb.common.annotations import Word
from speecheval.fdb.v10.scoring.interruption import score_interruption_sample
from speecheval.fdb.v10.scoring.unified import score_tree

from .treekit import Spec, interrupt, write_tree

SUB = "synthetic_user_interruption"
T = 20.0


def run(segs: list[tuple[float, float]], word_starts: list[float], s: float = 5.0,
        r: float = 7.0):
    return score_interruption_sample(
        Spans.from_seconds([a for a, _ in segs], [b for _, b in segs]),
        tuple(Word("w", to_us(w), to_us(w + 0.2)) for w in word_starts),
        Span(to_us(s), to_us(r)), to_us(T))


def test_not_exercised() -> None:
    # Speech [0, 4) ends before S = 5: nothing covers S.
    sample = run([(0, 4)], [8.0])
    assert sample.outcome == "not_exercised" and not sample.speech_at_end
    assert sample.stop_us is None and sample.latency_us is None
    assert sample.speech_before_onset


def test_not_exercised_keeps_speech_at_end() -> None:
    # Speech starts at 6 inside (5, 7) and runs past R = 7.
    sample = run([(6, 9)], [])
    assert sample.outcome == "not_exercised"
    assert sample.speech_at_end and sample.restarts == 1
    assert sample.speech_in_interruption_us == to_us(1.0)   # [6, 7]


def test_speaking_at_end() -> None:
    # [0, 10) covers S and R: stop = 10 - 5 = 5 s (observed, since 10 < T = 20).
    sample = run([(0, 10)], [7.5])
    assert sample.outcome == "speaking_at_end" and sample.latency_us is None
    assert sample.stop_us == to_us(5.0) and sample.stop_observed


def test_response() -> None:
    # [0, 5.8) covers S; stop 0.8 s; reply [8, 9) starts after R; first word 8.0 -> 1.0 s.
    sample = run([(0, 5.8), (8, 9)], [8.0, 8.3])
    assert sample.outcome == "response" and sample.latency_us == to_us(1.0)
    assert sample.stop_us == to_us(0.8)
    assert sample.speech_in_interruption_us == to_us(0.8)   # [5, 5.8]
    assert sample.restarts == 0


def test_reply_beginning_exactly_at_r_is_not_speech_at_end() -> None:
    # Segment [7, 9) starts at R = 7: start < R is false, so no carry-over; latency 0.
    sample = run([(0, 5.5), (7, 9)], [7.0])
    assert not sample.speech_at_end and sample.outcome == "response"
    assert sample.latency_us == 0


def test_no_response() -> None:
    sample = run([(0, 6)], [])
    assert sample.outcome == "no_response" and sample.stop_us == to_us(1.0)


def test_segment_running_to_t_has_no_observed_stop() -> None:
    sample = run([(0, T)], [])
    assert sample.outcome == "speaking_at_end"
    assert sample.stop_us is None and sample.stop_observed is False


def test_restart_inside_the_interruption() -> None:
    # Stops at 5.5, restarts at 6 (inside (5, 7)), stops at 6.5: one restart;
    # speech inside [5, 7] = 0.5 + 0.5 = 1.0 s.
    sample = run([(0, 5.5), (6, 6.5)], [8.0])
    assert sample.restarts == 1 and sample.outcome == "response"
    assert sample.speech_in_interruption_us == to_us(1.0)


def test_subset_metrics(tmp_path: Path, hand_segments) -> None:
    # S = 5, R = 7 (2 s) in every sample, T = 20.
    #   ne: not exercised     [(0, 4)]
    #   se: speaking_at_end   [(0, 10)]          stop 5.0
    #   r1: response 1.0 s    [(0, 5.8), (8, 9)] stop 0.8, speech in [S,R] 0.8
    #   r0: response 0.0 s    [(0, 5.5), (7, 9)] stop 0.5, speech 0.5
    #   nr: no_response       [(0, 6)]           stop 1.0, speech 1.0
    #   rt: response 3.0 s    [(0, 5.5), (6, 6.5), (10, 20)] stop 0.5, speech 1.0,
    #       one restart, first word 10.0 -> latency 3.0 (its last segment runs to T)
    #   x:  ineligible
    table = {"ne": [(0, 4)], "se": [(0, 10)], "r1": [(0, 5.8), (8, 9)],
             "r0": [(0, 5.5), (7, 9)], "nr": [(0, 6)],
             "rt": [(0, 5.5), (6, 6.5), (10, 20)]}
    first_word = {"ne": 8.0, "se": 7.5, "r1": 8.0, "r0": 7.0, "rt": 10.0}
    specs = [Spec(SUB, k, T, [("w", first_word[k], first_word[k] + 0.2)] if k in first_word
                  else [], interrupt(5.0, 7.0)) for k in table]
    specs.append(Spec(SUB, "x", T, [], interrupt(5.0, 7.0), eligible=False,
                      reasons=["capture_error", "pacing"]))
    hand_segments({f"{SUB}/{k}": v for k, v in table.items()})
    tree = write_tree(tmp_path / "t", specs)
    record = score_tree(tree).summary.report_dict()["subsets"][SUB]
    m = record["metrics"]
    # eligible 6, exercised 5 (all but ne), selected 7
    assert (m["exercised_rate"]["count"], m["exercised_rate"]["n"]) == (5, 6)
    # exercised_rate bounds: unknown = 1 ineligible -> [5/7, 6/7]
    assert m["exercised_rate"]["selected_bounds"] == pytest.approx([5 / 7, 6 / 7])
    assert (m["speaking_at_end_rate"]["count"], m["speaking_at_end_rate"]["n"]) == (1, 5)
    # other shares: unknown = 1 ineligible + 1 not exercised -> [c/7, (c+2)/7]
    assert m["speaking_at_end_rate"]["selected_bounds"] == pytest.approx([1 / 7, 3 / 7])
    assert m["response_rate_1s"]["count"] == 2      # r0 (0.0), r1 (1.0)
    assert m["response_rate_5s"]["count"] == 3      # + rt (3.0)
    assert m["no_response_rate"]["count"] == 1
    assert m["restart_rate"]["count"] == 1
    # latencies over exercised: 0, 1, 3, inf (se), inf (nr); median rank 3 -> 3.0
    assert m["response_latency_s"]["median"]["value"] == pytest.approx(3.0)
    # stops: se 5.0, r1 0.8, r0 0.5, nr 1.0, rt 0.5; sorted 0.5 0.5 0.8 1.0 5.0
    # median rank 3 -> 0.8; p90 rank ceil(4.5) = 5 -> 5.0
    assert m["stop_latency_s"]["median"]["value"] == pytest.approx(0.8)
    assert m["stop_latency_s"]["p90"]["value"] == pytest.approx(5.0)
    # speech in [S, R]: se 2.0, r1 0.8, r0 0.5, nr 1.0, rt 1.0 = 5.3 s over 5 * 2 = 10 s
    ratio = m["speech_s_per_interruption_s"]
    assert ratio["value"] == pytest.approx(0.53)
    assert record["counts"]["ineligible_reasons"] == {"capture_error": 1, "pacing": 1}
    assert record["min_observable_s"] == pytest.approx(13.0)   # 20 - 7
