"""The vectorised timestamp code against plain loops, scipy and a brute-force oracle."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from speecheval.core.timeline import Spans
from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.timestamps.boundaries import greedy_matches
from speecheval.transcripts.timestamps.intervals import overlaps_other_speaker
from speecheval.transcripts.timestamps.stream import timed_segments
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


@dataclass
class TurnCase:
    """One random case and what a plain reading of the rules says about it."""

    ref_segments: list[Segment]
    hyp_words: list[Segment]
    expected: dict[str, object]


def _random_case(rng: np.random.Generator) -> TurnCase:
    """Reference turns and a word-timed hypothesis whose alignment is unique by design.

    Every reference word is distinct (``w0``, ``w1``, ...), and the hypothesis is the
    reference stream with some words deleted and some replaced by fresh words (``x0``,
    ...) that occur nowhere in the reference, in the same order, with no insertions. For
    such a pair every minimum-edit alignment matches exactly the kept words: an alignment
    with M matches costs at least |ref| - M, the kept ones give |ref| - K with K the most
    matches possible, and distinct words can only match their own copy. So the anchors
    are known without running any aligner, and the expectations below follow from the
    rules in turns.py alone, turn by turn.
    """
    turns: list[tuple[float, float, str, list[str]]] = []
    clock, word_id = 0.0, 0
    for _ in range(int(rng.integers(1, 9))):
        count = int(rng.integers(0, 8))
        words = [f"w{word_id + k}" for k in range(count)]
        word_id += count
        start = clock + float(rng.integers(0, 3)) / 2
        end = start + 0.5 * max(count, 1)
        turns.append((start, end, str(rng.choice(["A", "B"])), words))
        clock = end - float(rng.integers(0, 2))   # sometimes overlap the next turn
    ref_segments = [Segment("r", speaker, start, end, " ".join(words))
                    for start, end, speaker, words in turns]
    # reference order: by (start, end, position in the file)
    order = sorted(range(len(turns)), key=lambda k: (turns[k][0], turns[k][1], k))
    hyp_words: list[Segment] = []
    anchors: dict[int, list[tuple[int, float, float]]] = {k: [] for k in order}
    t, fresh = 0.0, 0
    for k in order:
        start, _, _, words = turns[k]
        for position, word in enumerate(words):
            t = max(t + 0.5, start + 0.1 + 0.5 * position)   # strictly increasing times
            fate = rng.random()
            if fate < 0.2:
                continue                                      # deleted
            if fate < 0.4:
                hyp_words.append(Segment("r", None, t, t + 0.3, f"x{fresh}"))
                fresh += 1                                    # substituted by a fresh word
                continue
            hyp_words.append(Segment("r", None, t, t + 0.3, word))
            anchors[k].append((position, t, t + 0.3))         # kept: an anchor
    if not hyp_words:
        hyp_words.append(Segment("r", None, 1000.0, 1000.1, "x-only"))
    return TurnCase(ref_segments, hyp_words, _expected(turns, anchors))


def _expected(turns: list[tuple[float, float, str, list[str]]],
              anchors: dict[int, list[tuple[int, float, float]]]) -> dict[str, object]:
    """Counts and errors (µs) by the rules, one turn at a time, in reference order."""
    us = lambda seconds: round(seconds * 1_000_000)  # noqa: E731
    reasons = {"overlapping": 0, "empty": 0, "low": 0, "missing": 0}
    starts, ends = [], []
    for k in sorted(range(len(turns)), key=lambda k: (turns[k][0], turns[k][1], k)):
        start, end, speaker, words = turns[k]
        n, found = len(words), anchors[k]
        width = max(1, math.ceil(n / 5))                      # ceil(0.2 n), at least 1
        if any(other[2] != speaker and min(end, other[1]) > max(start, other[0])
               for other in turns):
            reasons["overlapping"] += 1
        elif n == 0:
            reasons["empty"] += 1
        elif 2 * len(found) < n:
            reasons["low"] += 1
        elif not (found[0][0] < width and found[-1][0] >= n - width):
            reasons["missing"] += 1
        else:
            starts.append(abs(us(found[0][1]) - us(start)))
            ends.append(abs(us(found[-1][2]) - us(end)))
    return {"reasons": reasons, "starts": starts, "ends": ends,
            "reference_tokens": sum(len(turn[3]) for turn in turns),
            "matched_tokens": sum(len(found) for found in anchors.values())}


@pytest.mark.parametrize("seed", range(30))
def test_turn_timing_against_a_brute_force_oracle(seed: int) -> None:
    case = _random_case(np.random.default_rng(200 + seed))
    result = turn_timing(timed_segments(case.ref_segments, "word"),
                         timed_segments(case.hyp_words, "word"))
    expected = case.expected
    assert {"overlapping": result.overlapping_turns, "empty": result.empty_turns,
            "low": result.low_match_turns, "missing": result.missing_anchor_turns} == (
        expected["reasons"])
    assert result.start_errors.errors_us.tolist() == expected["starts"]
    assert result.end_errors.errors_us.tolist() == expected["ends"]
    assert result.reference_tokens == expected["reference_tokens"]
    assert result.matched_tokens == expected["matched_tokens"]
