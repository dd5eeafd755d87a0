"""ORC-WER: hand-worked cases and random differential checks against meeteval 0.4.3."""

from __future__ import annotations

import random

import pytest
from text_reference import meeteval_seglst, tied_start_segments

from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.text.orc import orc_error_counts, orc_error_rate


def test_all_utterances_on_one_stream_is_error_free() -> None:
    # "a b" + "c d" + "e f" all to stream 0 = "a b c d e f": 0 errors over 6 words
    result = orc_error_counts([["a", "b"], ["c", "d"], ["e", "f"]], {"0": list("abcdef")})
    assert (result.counts.errors, result.counts.reference_tokens, result.assignment) == (
        0, 6, ("0", "0", "0"))


def test_each_utterance_goes_to_its_cheapest_stream() -> None:
    # utterances "x y", "p q", "x z"; streams A = "x y x z", B = "p q r".
    # x y -> A, p q -> B, x z -> A: A exact (0), B "p q" vs "p q r" 1 insertion: 1 error / 6
    result = orc_error_counts([["x", "y"], ["p", "q"], ["x", "z"]],
                              {"A": ["x", "y", "x", "z"], "B": ["p", "q", "r"]})
    assert (result.counts.errors, result.counts.insertions, result.assignment) == (
        1, 1, ("A", "B", "A"))
    assert result.error_rate == pytest.approx(1 / 6)


def test_no_hypothesis_deletes_everything_and_sessions_add() -> None:
    # session s1: "a b" vs nothing: 2 deletions; s2: "c" vs stream H "c d": 1 insertion
    ref = [Segment("s1", "A", 0, 1, "a b"), Segment("s2", "A", 0, 1, "c")]
    hyp = [Segment("s2", "H", 0, 1, "c d")]
    result = orc_error_rate(ref, hyp)
    assert (result.counts.deletions, result.counts.insertions, result.counts.reference_tokens,
            result.assignment) == (2, 1, 3, (None, "H"))


def test_reference_order_is_start_time_not_file_order() -> None:
    # file order "b", "a" but starts 5 and 0: the concatenation is "a b" = stream H, 0 errors
    ref = [Segment("s", "A", 5, 6, "b"), Segment("s", "B", 0, 1, "a")]
    assert orc_error_rate(ref, [Segment("s", "H", 0, 6, "a b")]).counts.errors == 0


def test_too_large_a_problem_is_refused() -> None:
    streams = {str(k): ["w"] * 200 for k in range(4)}
    with pytest.raises(ValueError, match="exceed the exact solver's limits"):
        orc_error_counts([["w"]] * 10, streams)


@pytest.mark.parametrize(("seed", "words", "cases", "utterances", "streams", "stream_words"), [
    (1, list("ab"), 120, (1, 6), (1, 4), 9),
    (2, list("abcdef"), 120, (1, 6), (1, 4), 9),
    # the vectorised solver's real size: up to 20 utterances over up to 4 streams
    (7, list("abcdefgh"), 40, (10, 21), (2, 5), 13),
])
def test_equals_meeteval_orcwer_on_random_cases(seed: int, words: list[str], cases: int,
                                                utterances: tuple[int, int],
                                                streams: tuple[int, int],
                                                stream_words: int) -> None:
    """Errors and length equal meeteval's, and the S/D/I of our assignment's alignment
    add up to that error count."""
    orc = pytest.importorskip("meeteval.wer.wer.orc",
                              reason="meeteval is a test-only comparison tool")
    rng = random.Random(seed)
    for _ in range(cases):
        utts = [" ".join(rng.choice(words) for _ in range(rng.randrange(0, 5)))
                for _ in range(rng.randrange(*utterances))]
        hyps = [" ".join(rng.choice(words) for _ in range(rng.randrange(0, stream_words)))
                for _ in range(rng.randrange(*streams))]
        theirs = orc.orc_word_error_rate(utts, hyps)
        ours = orc_error_counts([u.split() for u in utts],
                                {str(k): s.split() for k, s in enumerate(hyps)})
        assert (ours.counts.errors, ours.counts.reference_tokens) == (
            theirs.errors, theirs.length), (utts, hyps)
        assert (ours.counts.substitutions + ours.counts.deletions + ours.counts.insertions
                == theirs.errors)


def test_equals_meeteval_on_timed_segments() -> None:
    orc = pytest.importorskip("meeteval.wer.wer.orc",
                              reason="meeteval is a test-only comparison tool")
    rng = random.Random(3)
    for _ in range(60):
        ref = [Segment("s", rng.choice("AB"), float(k), k + 0.5,
                       " ".join(rng.choice("abc") for _ in range(rng.randrange(1, 4))))
               for k in rng.sample(range(20), rng.randrange(1, 6))]
        hyp = [Segment("s", rng.choice("XY"), float(k), k + 0.5,
                       " ".join(rng.choice("abc") for _ in range(rng.randrange(1, 4))))
               for k in rng.sample(range(20), rng.randrange(1, 5))]
        theirs = orc.orc_word_error_rate(meeteval_seglst(ref), meeteval_seglst(hyp))
        ours = orc_error_rate(ref, hyp)
        assert (ours.counts.errors, ours.counts.reference_tokens) == (
            theirs.errors, theirs.length), (ref, hyp)


def test_ties_go_to_the_lowest_stream_of_the_earliest_utterance() -> None:
    # "x" can go to A ("x") or B ("x"): both 0 errors for it, then "y" must go to the
    # stream holding "y". Streams A = "x", B = "x y": best total 1 either way
    # (x->A, y->B: B "y" vs "x y" 1 ins; x->B, y->B: A "x" inserted, B exact: 1).
    # The earliest utterance takes the lowest stream: x->A.
    result = orc_error_counts([["x"], ["y"]], {"A": ["x"], "B": ["x", "y"]})
    assert (result.counts.errors, result.assignment) == (1, ("A", "B"))


@pytest.mark.parametrize(("seed", "words", "streams"), [(21, "a", 3), (22, "ab", 2), (23, "ab", 4),
                                                        (24, "abc", 3)])
def test_ties_go_where_meeteval_puts_them(seed: int, words: str, streams: int) -> None:
    """On tie-rich random cases (one to three letters, empty utterances and streams), the
    assignment is meeteval's, not only the error count."""
    orc = pytest.importorskip("meeteval.wer.wer.orc",
                              reason="meeteval is a test-only comparison tool")
    rng = random.Random(seed)
    for _ in range(150):
        utts = [" ".join(rng.choice(words) for _ in range(rng.randrange(0, 4)))
                for _ in range(rng.randrange(1, 7))]
        hyps = [" ".join(rng.choice(words) for _ in range(rng.randrange(0, 7)))
                for _ in range(rng.randrange(1, streams + 1))]
        theirs = orc.orc_word_error_rate(utts, hyps)
        ours = orc_error_counts([u.split() for u in utts],
                                {str(k): s.split() for k, s in enumerate(hyps)})
        assert ours.assignment == tuple(str(a) for a in theirs.assignment), (utts, hyps)


def test_segment_assignment_in_file_order_as_meeteval() -> None:
    # file order "b" (start 5), "a" (start 0), "" (start 2); streams Q "b" (start 4), P "a"
    # (start 0), Z empty (start 0). Streams rank by their first segment in start order:
    # P, Z, Q. Start order: a -> P, "" (fits anywhere: the first stream, P), b -> Q; the
    # assignment is given in file order: b -> Q, a -> P, "" -> P.
    orc = pytest.importorskip("meeteval.wer.wer.orc",
                              reason="meeteval is a test-only comparison tool")
    ref = [Segment("s", "A", 5, 6, "b"), Segment("s", "A", 0, 1, "a"),
           Segment("s", "A", 2, 3, "")]
    hyp = [Segment("s", "Q", 4, 6, "b"), Segment("s", "P", 0, 1, "a"),
           Segment("s", "Z", 0, 1, "")]
    result = orc_error_rate(ref, hyp)
    assert (result.counts.errors, result.assignment) == (0, ("Q", "P", "P"))
    assert orc.orc_word_error_rate(meeteval_seglst(ref),
                                   meeteval_seglst(hyp)).assignment == result.assignment


def test_equals_meeteval_with_tied_starts() -> None:
    """Segments that start together keep file order (a stable sort by start), on both
    sides, as meeteval's: errors and length equal its ORC-WER on tie-rich random cases."""
    orc = pytest.importorskip("meeteval.wer.wer.orc",
                              reason="meeteval is a test-only comparison tool")
    rng = random.Random(1)
    for _ in range(100):
        ref, hyp = tied_start_segments(rng, "AB"), tied_start_segments(rng, "XY")
        theirs = orc.orc_word_error_rate(meeteval_seglst(ref), meeteval_seglst(hyp))
        ours = orc_error_rate(ref, hyp)
        assert (ours.counts.errors, ours.counts.reference_tokens) == (
            theirs.errors, theirs.length), (ref, hyp)
