"""``score_pause_samples`` (all samples at once) against ``score_pause_sample`` (one by
one, the definition) on random samples: the same record for every sample."""

from __future__ import annotations

import numpy as np

from speecheval.core.timeline import Spans
from speecheval.fdb.common.annotations import Word
from speecheval.fdb.v10.scoring.pause import score_pause_sample, score_pause_samples


def random_sample(rng: np.random.Generator) -> tuple[tuple[Word, ...], Spans]:
    """Pauses sorted and disjoint (touching and zero-length ones included, as the loader
    allows); words anywhere in [0, T], overlapping, some with a null end (zero length),
    sorted as the loader sorts them; sometimes no word at all."""
    duration = int(rng.integers(1_000, 3_000))
    cuts = np.sort(rng.choice(np.arange(duration + 1), size=2 * int(rng.integers(1, 5)),
                              replace=True))
    pauses = Spans(cuts[0::2], cuts[1::2])
    words = []
    for _ in range(int(rng.integers(0, 8)) * int(rng.random() > 0.1)):
        start = int(rng.integers(0, duration + 1))
        end = start if rng.random() < 0.2 else int(rng.integers(start, duration + 1))
        words.append(Word("w", start, end, end_was_null=end == start))
    words.sort(key=lambda w: (w.start_us, w.end_us))
    return tuple(words), pauses


def test_batch_equals_one_by_one_on_random_samples() -> None:
    rng = np.random.default_rng(15)
    for _ in range(40):
        samples = [random_sample(rng) for _ in range(int(rng.integers(1, 30)))]
        assert score_pause_samples(samples) == [score_pause_sample(w, p) for w, p in samples]


def test_edges_between_samples_do_not_leak() -> None:
    # the first sample's word and pause run to its latest instant (100), the second's
    # start at 0: on the shared axis they must stay apart, not merge into one span
    first = ((Word("a", 0, 100),), Spans([50], [100]))
    second = ((Word("b", 0, 10),), Spans([0], [10]))
    one, two = score_pause_samples([first, second])
    assert (one.intrusion_us, one.intruded_pauses) == (50, 0)  # onset 0 before the pause
    assert (two.intrusion_us, two.intruded_pauses, two.intrusion_words) == (10, 1, 1)
    assert score_pause_samples([]) == []
