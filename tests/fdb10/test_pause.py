"""Pause handling, worked out by hand from the words and pauses written in each test."""

from __future__ import annotations

from pathlib import Path

import pytest

from speecheval.core.stats import resample_indices
from speecheval.core.timebase import to_us
from speecheval.core.timeline import Spans
from speecheval.fdb.common.annotations import Word
from speecheval.fdb.v10.scoring.pause import score_pause_sample
from speecheval.fdb.v10.scoring.unified import score_tree

from .treekit import Spec, pauses, write_tree

SUB = "synthetic_pause_handling"


def words(*items: tuple[str, float, float]) -> tuple[Word, ...]:
    return tuple(Word(t, to_us(s), to_us(e)) for t, s, e in items)


def spans(*items: tuple[float, float]) -> Spans:
    return Spans.from_seconds([a for a, _ in items], [b for _, b in items])


def test_every_flag_on_one_sample() -> None:
    # T = 10 s, pauses [2, 3) and [5, 6); owned intervals [2, 5) and [5, 10].
    # a 0.5-1.0: before the first pause (pre-pause speech).
    # b 1.8-2.4: starts before 2 and ends after it (carry-in); covers 0.4 s of pause 1.
    # c 3.0: starts at the END of pause 1, so not inside [2, 3) but in owned [2, 5).
    # d 5.0: exactly at the start of pause 2: inside [5, 6) and in owned [5, 10];
    #        covers 0.5 s of pause 2.
    sample = score_pause_sample(
        words(("a", 0.5, 1.0), ("b", 1.8, 2.4), ("c", 3.0, 3.2), ("d", 5.0, 5.5)),
        spans((2, 3), (5, 6)))
    assert sample.pause_intrusion and sample.inside_pause_onset
    assert sample.pre_pause_speech and sample.carry_in and sample.any_speech
    assert sample.intrusion_words == 2          # c and d start at or after 2.0
    assert (sample.intruded_pauses, sample.pauses) == (2, 2)
    assert sample.pause_us == to_us(2.0)        # 1 s + 1 s
    assert sample.intrusion_us == to_us(0.9)    # 0.4 (b) + 0 (c) + 0.5 (d)


def test_float_noise_at_a_pause_start_counts_as_inside() -> None:
    # The annotation says 6.32000000000005 and the word 6.32: equal after rounding to
    # the microsecond, so the word starts at the pause start, i.e. inside [a, b).
    sample = score_pause_sample(words(("w", 6.32, 6.5)), spans((6.32000000000005, 7.0)))
    assert sample.inside_pause_onset and sample.pause_intrusion
    assert not sample.pre_pause_speech
    assert sample.intrusion_us == to_us(0.18)   # 6.5 - 6.32


def test_null_end_word_is_an_onset_without_coverage() -> None:
    sample = score_pause_sample((Word("w", to_us(2.0), to_us(2.0), end_was_null=True),),
                                spans((2, 3)))
    assert sample.pause_intrusion and sample.inside_pause_onset
    assert sample.intrusion_us == 0             # zero-length adds nothing


def test_word_at_t_is_in_the_last_owned_interval() -> None:
    # Last pause owns [4, T] with T = 5 inclusive; a word starting at 5.0 intrudes there.
    sample = score_pause_sample(words(("w", 5.0, 5.0)), spans((1, 2), (4, 4.5)))
    assert (sample.intruded_pauses, sample.inside_pause_onset) == (1, False)


def test_overlapping_words_cover_pause_time_once() -> None:
    # Two words overlap on [2.2, 2.5]; their union covers [2.0, 2.8] = 0.8 s of [2, 3).
    sample = score_pause_sample(words(("x", 2.0, 2.5), ("y", 2.2, 2.8)), spans((2, 3)))
    assert sample.intrusion_us == to_us(0.8)


def test_silence_scores_no_flag() -> None:
    sample = score_pause_sample((), spans((2, 3)))
    assert not any([sample.pause_intrusion, sample.inside_pause_onset,
                    sample.pre_pause_speech, sample.carry_in, sample.any_speech])
    assert sample.intrusion_us == 0


def test_subset_metrics(tmp_path: Path, hand_segments: object) -> None:
    # Five selected samples, one ineligible (capture_error), so n = 4 eligible.
    #   s1: word at 2.5 in pause [2,3)         -> intrusion, inside, 1 of 1 pauses, 0.5 s
    #   s2: word at 0.5-1.0 only               -> pre-pause only
    #   s3: silence                            -> nothing
    #   s4: pauses [1,2),[3,4); word 3.5-4.5   -> intrusion, inside; intruded 1 of 2;
    #       covers 0.5 s of [3, 4)
    tree = write_tree(tmp_path / "t", [
        Spec(SUB, "s1", 5.0, [("a", 2.5, 3.0)], pauses((2, 3))),
        Spec(SUB, "s2", 5.0, [("a", 0.5, 1.0)], pauses((2, 3))),
        Spec(SUB, "s3", 5.0, [], pauses((2, 3))),
        Spec(SUB, "s4", 5.0, [("a", 3.5, 4.5)], pauses((1, 2), (3, 4))),
        Spec(SUB, "s5", 5.0, [], pauses((2, 3)), eligible=False, reasons=["capture_error"]),
    ])
    result = score_tree(tree)
    record = result.summary.report_dict()["subsets"][SUB]
    assert record["counts"] == {"declared": 137, "selected": 5, "eligible": 4,
                                "ineligible": 1, "ineligible_reasons": {"capture_error": 1}}
    assert record["coverage"] == pytest.approx(4 / 5)
    metrics = record["metrics"]
    rate = metrics["pause_intrusion_rate"]
    # 2 of 4 eligible; selected bounds [2/5, (2+1)/5] = [0.4, 0.6]
    assert (rate["count"], rate["n"], rate["value"]) == (2, 4, 0.5)
    assert rate["selected_bounds"] == [0.4, 0.6]
    assert metrics["pre_pause_speech_rate"]["count"] == 1
    assert metrics["any_speech_rate"]["count"] == 3
    per_pause = metrics["pause_intrusion_per_pause"]
    # pauses: 1 + 1 + 1 + 2 = 5; intruded: 1 (s1) + 1 (s4) = 2
    assert (per_pause["numerator"], per_pause["denominator"]) == (2, 5)
    assert per_pause["value"] == pytest.approx(0.4)
    seconds = metrics["intrusion_s_per_pause_s"]
    # covered 0.5 + 0.5 = 1.0 s over pause time 1 + 1 + 1 + 2 = 5 s
    assert seconds["value"] == pytest.approx(0.2)
    assert seconds["interval"]["resamples_used"] == 2000
    ineligible = [r.report_dict() for r in result.rows if r.sample_id == f"{SUB}/s5"][0]
    assert ineligible == {"sample_id": f"{SUB}/s5", "subset": SUB,
                          "task": "pause_handling", "eligible": False,
                          "input_duration_s": 5.0, "reasons": ["capture_error"]}


def test_bootstrap_resample_without_pause_time_is_skipped(tmp_path: Path,
                                                          hand_segments: object) -> None:
    # z1, z2: a zero-length pause [3, 3] (no pause time); w: pause [2, 3) half covered.
    # A resample drawing only z1 and z2 has no pause time and no ratio: skipped.
    # P(a resample has no w) = (2/3)^3 = 0.296, so about 593 of 2000 are skipped.
    tree = write_tree(tmp_path / "t", [
        Spec(SUB, "z1", 5.0, [], pauses((3, 3))),
        Spec(SUB, "z2", 5.0, [], pauses((3, 3))),
        Spec(SUB, "w", 5.0, [("a", 2.5, 3.0)], pauses((2, 3))),
    ])
    metric = score_tree(tree).summary.report_dict()["subsets"][SUB]["metrics"][
        "intrusion_s_per_pause_s"]
    assert metric["value"] == pytest.approx(0.5)       # 0.5 s covered of 1.0 s
    used = metric["interval"]["resamples_used"]
    without_w = int((resample_indices(3) != 2).all(axis=1).sum())
    assert used == 2000 - without_w and 500 < without_w < 700
    # Every defined resample contains w, whose ratio is 0.5; z1/z2 add nothing.
    assert metric["interval"]["low"] == metric["interval"]["high"] == pytest.approx(0.5)
