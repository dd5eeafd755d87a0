"""tcpWER: hand-worked cases and random differential checks against meeteval 0.4.3."""

from __future__ import annotations

import logging
import random

import pytest
from text_reference import meeteval_seglst, tied_start_segments

from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.text.tcp import (
    TimedWord,
    character_based,
    tcp_error_rate,
    time_constrained_counts,
)


def test_character_based_spans() -> None:
    # "a bb c" over [0, 4]: 4 characters, 1 s each -> a [0,1], bb [1,3], c [3,4]
    assert character_based(0.0, 4.0, ["a", "bb", "c"]) == [(0.0, 1.0), (1.0, 3.0), (3.0, 4.0)]
    assert character_based(2.0, 5.0, ["x"]) == [(2.0, 5.0)]
    assert character_based(2.0, 5.0, []) == []


def test_right_words_at_the_wrong_time_count_twice() -> None:
    # reference A "a b" in [0, 2]: a [0,1], b [1,2]. Hypothesis X "a b" in [10, 12]:
    # points 10.5 and 11.5. cpWER would be 0; tcpWER with collar 1: no pair overlaps
    # ([9.5, 11.5] against [0, 2]) -> 2 deletions + 2 insertions = 4 errors over 2 words.
    ref = [Segment("s", "A", 0, 2, "a b")]
    late = [Segment("s", "X", 10, 12, "a b")]
    result = tcp_error_rate(ref, late, collar=1.0)
    assert (result.counts.deletions, result.counts.insertions, result.counts.errors) == (2, 2, 4)
    # with collar 9: a's point 10.5 widens to [1.5, 19.5], which overlaps b [1,2] but not
    # a [0,1]; b's point 11.5 -> [2.5, 20.5] overlaps nothing (strict: 2 < 2.5 fails).
    # Best: a deleted, b->a substituted (both at [1,2]~[1.5,19.5]), hyp b inserted: 3.
    assert tcp_error_rate(ref, late, collar=9.0).counts.errors == 3
    # collar 10: a [0.5, 20.5] overlaps a [0,1], b [1.5, 21.5] overlaps b [1,2]: 0 errors
    assert tcp_error_rate(ref, late, collar=10.0).counts.errors == 0


def test_speakers_are_paired_as_in_cpwer() -> None:
    # A "x" [0,1], B "y" [1,2]; hypothesis P "y" [1,2], Q "x" [0,1], R "z" [5,6], collar 0.
    # A-Q 0, B-P 0, R unpaired: 1 insertion, 1 false-alarm speaker
    ref = [Segment("s", "A", 0, 1, "x"), Segment("s", "B", 1, 2, "y")]
    hyp = [Segment("s", "P", 1, 2, "y"), Segment("s", "Q", 0, 1, "x"),
           Segment("s", "R", 5, 6, "z")]
    result = tcp_error_rate(ref, hyp, collar=0.0)
    assert (result.counts.errors, result.false_alarm_speakers) == (1, 1)
    assert {(p.reference_speaker, p.hypothesis_speaker) for p in result.assignment} == {
        ("A", "Q"), ("B", "P"), (None, "R")}


def test_untimed_segments_and_negative_collar_are_refused() -> None:
    with pytest.raises(ValueError, match="tcpWER needs start and end times"):
        tcp_error_rate([Segment("s", "A", None, None, "a")], [], collar=5.0)
    with pytest.raises(ValueError, match="collar must be >= 0"):
        tcp_error_rate([], [], collar=-1.0)


@pytest.mark.parametrize(("seed", "collar"), [(1, 0.0), (2, 0.5), (3, 2.0), (4, 5.0)])
def test_equals_meeteval_tcpwer_on_random_cases(seed: int, collar: float,
                                                caplog: pytest.LogCaptureFixture) -> None:
    tc = pytest.importorskip("meeteval.wer.wer.time_constrained",
                             reason="meeteval is a test-only comparison tool")
    caplog.set_level(logging.ERROR)  # meeteval warns about a zero collar
    rng = random.Random(seed)
    words = ["a", "bb", "ccc", "dddd"]
    for _ in range(80):
        def segments(speakers: str, count: int) -> list[Segment]:
            starts = sorted(rng.sample(range(0, 40), count))
            return [Segment(rng.choice(["s1", "s2"]), rng.choice(speakers), t / 2,
                            t / 2 + rng.choice([0.5, 1.0, 2.5]),
                            " ".join(rng.choice(words) for _ in range(rng.randrange(0, 5))))
                    for t in starts]
        ref = segments("AB", rng.randrange(1, 7))
        hyp = segments("XYZ", rng.randrange(0, 7))

        def seglst(segs: list[Segment]) -> list[dict[str, object]]:
            return [{"session_id": s.session_id, "speaker": s.speaker, "start_time": s.start,
                     "end_time": s.end, "words": s.words} for s in segs]
        # per session, so a session with no hypothesis at all is scored, not refused
        theirs = sum(tc.tcp_word_error_rate(
            seglst([s for s in ref if s.session_id == session]),
            seglst([s for s in hyp if s.session_id == session]), collar=collar)
            for session in {s.session_id for s in ref + hyp})
        ours = tcp_error_rate(ref, hyp, collar=collar)
        assert (ours.counts.errors, ours.counts.reference_tokens) == (
            theirs.errors, theirs.length), (ref, hyp)


def test_all_pairs_at_once_equal_each_pair_alone() -> None:
    """The padded all-pairs fill (for the speaker assignment) gives every pair the errors
    of that pair's own table, whatever the other speakers' lengths (empty ones too)."""
    from speecheval.transcripts.text.tcp import TimedWord, pair_errors, time_constrained_counts

    rng = random.Random(11)

    def speaker() -> list[TimedWord]:
        words = []
        for _ in range(rng.randrange(0, 12)):
            start = rng.uniform(0, 10)
            words.append(TimedWord(rng.choice("abc"), start, start + rng.uniform(0.1, 2)))
        return words
    for _ in range(30):
        refs = [speaker() for _ in range(rng.randrange(1, 4))]
        hyps = [speaker() for _ in range(rng.randrange(1, 4))]
        together = pair_errors(refs, hyps)
        assert together.tolist() == [[time_constrained_counts(r, h).errors for h in hyps]
                                     for r in refs]


def _full_table_counts(reference: list[TimedWord], hypothesis: list[TimedWord]
                       ) -> tuple[int, int, int]:
    """S, D, I from the whole table of costs, traced diagonal first, then deletion, then
    insertion (the plain form of the bit-packed traceback, written out for this test)."""
    n, m = len(reference), len(hypothesis)
    cost = [[j for j in range(m + 1)]] + [[i] + [0] * m for i in range(1, n + 1)]

    def pairs(i: int, j: int) -> bool:
        r, h = reference[i - 1], hypothesis[j - 1]
        return r.start < h.end and r.end > h.start

    def step(i: int, j: int) -> int:
        return int(reference[i - 1].word != hypothesis[j - 1].word) if pairs(i, j) else n + m + 1
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost[i][j] = min(cost[i - 1][j] + 1, cost[i][j - 1] + 1,
                             cost[i - 1][j - 1] + step(i, j))
    subs = dels = ins = 0
    i, j = n, m
    while i or j:
        if i and j and pairs(i, j) and cost[i][j] == cost[i - 1][j - 1] + step(i, j):
            subs, i, j = subs + step(i, j), i - 1, j - 1
        elif i and cost[i][j] == cost[i - 1][j] + 1:
            dels, i = dels + 1, i - 1
        else:
            ins, j = ins + 1, j - 1
    return subs, dels, ins


def test_packed_traceback_gives_the_full_tables_split() -> None:
    """The traceback kept as two bits per cell splits S/D/I exactly as the whole table of
    costs does (ties included: few words, short spans)."""
    rng = random.Random(5)

    def words(count: int) -> list[TimedWord]:
        out = []
        for _ in range(count):
            start = rng.uniform(0, 8)
            out.append(TimedWord(rng.choice("ab"), start, start + rng.uniform(0.2, 3)))
        return sorted(out, key=lambda w: w.start)
    for _ in range(150):
        ref, hyp = words(rng.randrange(0, 14)), words(rng.randrange(0, 19))
        counts = time_constrained_counts(ref, hyp)
        assert (counts.substitutions, counts.deletions, counts.insertions) == \
            _full_table_counts(ref, hyp), (ref, hyp)


@pytest.mark.parametrize("collar", [0.0, 0.5])
def test_equals_meeteval_with_tied_starts(collar: float,
                                          caplog: pytest.LogCaptureFixture) -> None:
    """Segments that start together keep file order (a stable sort by start), as
    meeteval's 'segment' sort: errors and length equal its tcpWER on tie-rich cases."""
    tc = pytest.importorskip("meeteval.wer.wer.time_constrained",
                             reason="meeteval is a test-only comparison tool")
    caplog.set_level(logging.ERROR)  # meeteval warns about a zero collar
    rng = random.Random(1)
    for _ in range(100):
        ref, hyp = tied_start_segments(rng, "AB"), tied_start_segments(rng, "XY")
        theirs = tc.tcp_word_error_rate(meeteval_seglst(ref), meeteval_seglst(hyp),
                                        collar=collar)
        ours = tcp_error_rate(ref, hyp, collar=collar)
        assert (ours.counts.errors, ours.counts.reference_tokens) == (
            theirs.errors, theirs.length), (ref, hyp)
