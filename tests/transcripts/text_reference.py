"""Independent reference implementations and meeteval input helpers for the text-scoring
tests."""

from __future__ import annotations

import random

from speecheval.transcripts.formats.segment import Segment


def reference_distance(a: list[str], b: list[str]) -> int:
    """Textbook Wagner-Fischer, written independently of the code under test."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        cur = [i]
        for j, y in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def meeteval_seglst(segments: list[Segment]) -> list[dict[str, object]]:
    """The segments as meeteval's SegLST records, to score the same input with meeteval."""
    return [{"session_id": s.session_id, "speaker": s.speaker, "start_time": s.start,
             "end_time": s.end, "words": s.words} for s in segments]


def tied_start_segments(rng: random.Random, speakers: str) -> list[Segment]:
    """1 to 5 segments of one session whose starts collide often (three start times,
    three lengths), the case where the order of a speaker's segments depends on how ties
    are broken."""
    return [Segment("s", rng.choice(speakers), float(start), start + rng.choice([0.5, 1.0, 2.0]),
                    " ".join(rng.choice("abc") for _ in range(rng.randrange(1, 4))))
            for start in (rng.choice([0, 0, 1, 1, 2]) for _ in range(rng.randrange(1, 6)))]
