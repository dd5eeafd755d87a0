"""The vectorised timestamp code against plain loops and scipy on random cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from speecheval.core.timeline import Spans
from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.timestamps.boundaries import greedy_matches
from speecheval.transcripts.timestamps.intervals import overlaps_other_speaker
from speecheval.transcripts.timestamps.stream import align_streams, timed_segments
from speecheval.transcripts.timestamps.turns import turn_timing


@pytest.mark.parametrize("seed", range(20))
def test_union_and_overlap_against_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    starts = rng.integers(0, 50, n)
    ends = starts + rng.integers(0, 15, n)
    speakers = rng.integers(0, 3, n)
    covered = np.zeros(80, dtype=bool)
    for s, e in zip(starts, ends, strict=True):
        covered[s:e] = True
    assert Spans(starts, ends).covered_us() == int(covered.sum())
    expected = [any(speakers[j] != speakers[i] and min(ends[i], ends[j])
                    > max(starts[i], starts[j]) for j in range(n)) for i in range(n)]
    assert overlaps_other_speaker(starts, ends, speakers).tolist() == expected


@pytest.mark.parametrize("seed", range(20))
def test_greedy_boundary_matching_is_maximum(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    ref = np.unique(rng.integers(0, 60, int(rng.integers(0, 15))))
    hyp = np.unique(rng.integers(0, 60, int(rng.integers(0, 15))))
    tolerance = int(rng.integers(0, 6))
    close = (np.abs(ref[:, None] - hyp[None, :]) <= tolerance).astype(np.int8)
    if ref.size and hyp.size:
        matching = maximum_bipartite_matching(csr_matrix(close), perm_type="column")
        best = int((matching >= 0).sum())
    else:
        best = 0
    assert greedy_matches(ref, hyp, tolerance) == best


def _loop_turns(ref_segments: list[Segment], hyp_words: list[Segment]) -> tuple[int, list[int]]:
    """Scorable turns and their start errors (µs), one turn at a time."""
    ref = timed_segments(ref_segments, "word")
    hyp = timed_segments(hyp_words, "word")
    path = align_streams(ref, hyp)
    match = {int(r): int(h) for r, h in path.matched_pairs()}
    overlap = overlaps_other_speaker(ref.starts, ref.ends, ref.speakers)
    errors = []
    position = 0
    for turn in range(ref.size):
        n = int((ref.token_group == turn).sum())
        indices = list(range(position, position + n))
        position += n
        anchors = [i for i in indices if i in match]
        width = max(1, math.ceil(0.2 * n - 1e-12))
        if overlap[turn] or n == 0 or 2 * len(anchors) < n:
            continue
        if not (anchors and anchors[0] - indices[0] < width
                and indices[-1] - anchors[-1] < width):
            continue
        errors.append(abs(int(hyp.token_starts[match[anchors[0]]]) - int(ref.starts[turn])))
    return len(errors), errors


@pytest.mark.parametrize("seed", range(15))
def test_turn_timing_against_a_loop(seed: int) -> None:
    rng = np.random.default_rng(200 + seed)
    vocabulary = ["a", "b", "c", "d", "e"]
    ref_segments, hyp_words, clock = [], [], 0.0
    for _ in range(int(rng.integers(1, 8))):
        words = list(rng.choice(vocabulary, int(rng.integers(0, 7))))
        start = clock + float(rng.integers(0, 3)) / 2
        end = start + 0.5 * max(len(words), 1)
        speaker = str(rng.choice(["A", "B"]))
        ref_segments.append(Segment("r", speaker, start, end, " ".join(words)))
        t = start
        for word in words:
            if rng.random() < 0.3:
                word = str(rng.choice(vocabulary))  # a substitution or an accidental match
            if rng.random() < 0.8:
                hyp_words.append(Segment("r", None, t + 0.1, t + 0.4, word))
            t += 0.5
        clock = end - float(rng.integers(0, 2))  # sometimes overlap the next turn
    if not hyp_words:
        hyp_words.append(Segment("r", None, 0.0, 0.1, "z"))
    result = turn_timing(timed_segments(ref_segments, "word"),
                         timed_segments(hyp_words, "word"))
    count, errors = _loop_turns(ref_segments, hyp_words)
    assert result.scorable_turns == count
    assert result.start_errors.errors_us.tolist() == errors
