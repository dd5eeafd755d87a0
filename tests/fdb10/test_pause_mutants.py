"""Cases added for mutants of ``fdb/v10/scoring/pause.py`` that the other tests let survive
(docs/testing.md, "Surviving mutants")."""

from __future__ import annotations

from speecheval.core.timeline import Spans
from speecheval.fdb.common.annotations import Word
from speecheval.fdb.v10.scoring.pause import PauseSample, score_pause_sample, score_pause_samples


def test_a_batch_where_no_sample_says_a_word() -> None:
    # Two silent samples: nothing intrudes, and each sample's pause time is its own:
    # [1.0, 2.0) + [3.0, 3.5) s = 1.5 s, and [0.5, 0.9) s = 0.4 s. The batch has no word
    # at all, so its latest time comes from the pauses alone (3.5 s).
    samples = [((), Spans([1_000_000, 3_000_000], [2_000_000, 3_500_000])),
               ((), Spans([500_000], [900_000]))]
    silent = {"pause_intrusion": False, "inside_pause_onset": False,
              "pre_pause_speech": False, "carry_in": False, "any_speech": False,
              "intrusion_words": 0, "intruded_pauses": 0, "intrusion_us": 0, "words": 0}
    expected = [PauseSample(**silent, pauses=2, pause_us=1_500_000,
                            first_pause_start_us=1_000_000),
                PauseSample(**silent, pauses=1, pause_us=400_000,
                            first_pause_start_us=500_000)]
    assert score_pause_samples(samples) == expected
    assert [score_pause_sample(words, pauses) for words, pauses in samples] == expected


def test_carry_in_is_strict_at_the_first_pause_start_in_a_batch() -> None:
    # One pause [1.0, 2.0) s in each of three samples (1.0 s of pause time each), and one
    # word each. Carry-in is a word with start < first pause start < end, strictly:
    #   a: [0.5, 1.0) ends exactly at the pause start: no carry-in, pre-pause speech,
    #      no time inside the pause
    #   b: [1.0, 1.2) starts exactly at it: no carry-in, an intrusion onset inside the
    #      pause (1.0 is in [1.0, 2.0)), 0.2 s of intrusion
    #   c: [0.8, 1.3) runs across it: carry-in, pre-pause speech, 1.3 - 1.0 = 0.3 s inside
    pause = Spans([1_000_000], [2_000_000])
    samples = [((Word("a", 500_000, 1_000_000),), pause),
               ((Word("b", 1_000_000, 1_200_000),), pause),
               ((Word("c", 800_000, 1_300_000),), pause)]
    common = {"any_speech": True, "pauses": 1, "pause_us": 1_000_000,
              "first_pause_start_us": 1_000_000, "words": 1}
    expected = [
        PauseSample(pause_intrusion=False, inside_pause_onset=False, pre_pause_speech=True,
                    carry_in=False, intrusion_words=0, intruded_pauses=0, intrusion_us=0,
                    **common),
        PauseSample(pause_intrusion=True, inside_pause_onset=True, pre_pause_speech=False,
                    carry_in=False, intrusion_words=1, intruded_pauses=1,
                    intrusion_us=200_000, **common),
        PauseSample(pause_intrusion=False, inside_pause_onset=False, pre_pause_speech=True,
                    carry_in=True, intrusion_words=0, intruded_pauses=0,
                    intrusion_us=300_000, **common)]
    assert score_pause_samples(samples) == expected
    assert [score_pause_sample(words, pauses) for words, pauses in samples] == expected
