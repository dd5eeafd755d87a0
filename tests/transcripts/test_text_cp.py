"""cpWER/cpCER: hand cases, brute force, meeteval on random cases, meeteval's fixtures."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from text_reference import meeteval_seglst, reference_distance, tied_start_segments

from speecheval.transcripts.formats.seglst import SegLST
from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.formats.stm import STM
from speecheval.transcripts.formats.uem import UEM
from speecheval.transcripts.text.align import Vocabulary, distance, encode_pair
from speecheval.transcripts.text.bounds import lower_bounds
from speecheval.transcripts.text.counts import ErrorCounts
from speecheval.transcripts.text.cp import (
    CpResult,
    cp_error_counts,
    cp_error_rate,
    filter_by_uem,
)
from speecheval.transcripts.text.kaldi_split import kaldi_counts


def brute_force_cp(ref: dict[str, list[str]], hyp: dict[str, list[str]]) -> int:
    """Minimum over every pairing (padding with empty speakers), textbook distances."""
    refs, hyps = list(ref.values()), list(hyp.values())
    size = max(len(refs), len(hyps))
    refs += [[]] * (size - len(refs))
    hyps += [[]] * (size - len(hyps))
    return min(sum(reference_distance(refs[i], hyps[p[i]]) for i in range(size))
               for p in itertools.permutations(range(size)))


def test_hand_chinese_cpcer_swapped_labels() -> None:
    # Reference A: 你好吗 (3), B: 我很好 (3). Hypothesis labels are swapped and one char is
    # wrong: X = 我很号, Y = 你好吗. Pairing A-Y (0) and B-X (好->号, 1 sub): 1 / 6.
    result = cp_error_rate(
        [Segment("s", "A", 0, 1, "你好吗？"), Segment("s", "B", 1, 2, "我很好。")],
        [Segment("s", "X", 0, 1, "我很号"), Segment("s", "Y", 1, 2, "你好吗")], "char")
    assert result.counts == ErrorCounts(1, 0, 0, 6, 6)
    assert result.error_rate == pytest.approx(1 / 6)
    assert {(p.reference_speaker, p.hypothesis_speaker) for p in result.assignment} == {
        ("A", "Y"), ("B", "X")}


def test_more_hypothesis_speakers_than_reference() -> None:
    # Reference: one speaker "a b c d". Hypothesis splits it over three speakers:
    # X = "a b", Y = "c d", Z = "e". Best: A-X (2 deletions), Y and Z false alarms
    # (2 + 1 insertions). Errors 5 over 4 tokens; 0 missed, 2 false-alarm speakers.
    result = cp_error_counts({"A": list("abcd")}, {"X": list("ab"), "Y": list("cd"),
                                                   "Z": ["e"]})
    assert (result.counts.deletions, result.counts.insertions) == (2, 3)
    assert result.counts.errors == 5 and result.counts.reference_tokens == 4
    assert (result.missed_speakers, result.false_alarm_speakers) == (0, 2)


def test_more_reference_speakers_than_hypothesis() -> None:
    # Reference A = "x y", B = "z"; hypothesis has one speaker "x y z".
    # A-H costs 1 (insert z) + B missed costs 1: total 2; B-H would cost 2 + 2 = 4.
    result = cp_error_counts({"A": ["x", "y"], "B": ["z"]}, {"H": ["x", "y", "z"]})
    assert result.counts.errors == 2
    assert (result.missed_speakers, result.false_alarm_speakers) == (1, 0)


def test_empty_hypothesis_and_empty_reference() -> None:
    missed = cp_error_counts({"A": ["a", "b"]}, {})
    assert missed.counts == ErrorCounts(0, 2, 0, 2, 0) and missed.missed_speakers == 1
    fa = cp_error_counts({}, {"X": ["a"]})
    assert fa.counts == ErrorCounts(0, 0, 1, 0, 1) and fa.error_rate is None
    assert cp_error_counts({}, {}) == CpResult.zero()


def test_sessions_sum_and_one_sided_session_counted() -> None:
    # Session s1 scores 0 errors over 2; s2 exists only in the reference: 1 deletion.
    ref = [Segment("s1", "A", 0, 1, "a b"), Segment("s2", "A", 0, 1, "c")]
    hyp = [Segment("s1", "Z", 0, 1, "a b")]
    result = cp_error_rate(ref, hyp, "word")
    assert result.counts == ErrorCounts(0, 1, 0, 3, 2)
    assert result.missed_speakers == 1


def test_segments_concatenated_in_time_order() -> None:
    # Written out of order; by start time A says "one two", so "one two" matches exactly.
    ref = [Segment("s", "A", 5, 6, "two"), Segment("s", "A", 0, 1, "one")]
    hyp = [Segment("s", "B", 0, 6, "one two")]
    assert cp_error_rate(ref, hyp, "word").counts.errors == 0


@pytest.mark.parametrize(("file_order", "errors"), [
    # Both reference segments start at 0. Kept in file order, A says "b a", which the
    # hypothesis "b a" matches exactly: 0 errors. Written the other way round A says
    # "a b": "a b" -> "b a" costs 2 (two substitutions, or a deletion and an insertion),
    # 2 / 2 = 100 %. Sorting ties by end (0-2 before 0-3) gave "a b" for both, 2 errors.
    (("0 3 b", "0 2 a"), 0),
    (("0 2 a", "0 3 b"), 2),
])
def test_segments_starting_together_keep_file_order(file_order: tuple[str, str],
                                                    errors: int) -> None:
    ref = [Segment("s", "A", float(start), float(end), word)
           for start, end, word in (line.split() for line in file_order)]
    hyp = [Segment("s", "X", 0.0, 3.0, "b a")]
    result = cp_error_rate(ref, hyp, "word")
    assert (result.counts.errors, result.counts.reference_tokens) == (errors, 2)


def test_segment_order_equals_meeteval_with_tied_starts() -> None:
    # The tie pair above and its swap, then random segments whose starts collide often
    # (three start times, several ends): errors and length equal meeteval's cpWER. (Not
    # the I/D/S split: meeteval's own split differs between its dict and SegLST inputs
    # for the same speaker texts, even without ties.)
    cp_module = pytest.importorskip("meeteval.wer.wer.cp",
                                    reason="meeteval is a test-only comparison tool")
    pair = [Segment("s", "A", 0.0, 3.0, "b"), Segment("s", "A", 0.0, 2.0, "a")]
    hyp = [Segment("s", "X", 0.0, 3.0, "b a")]
    assert [cp_module.cp_word_error_rate(meeteval_seglst(r), meeteval_seglst(hyp)).errors
            for r in (pair, pair[::-1])] == [0, 2]
    rng = random.Random(1)
    cases = [(pair, hyp), (pair[::-1], hyp)] + [
        (tied_start_segments(rng, "AB"), tied_start_segments(rng, "XY")) for _ in range(100)]
    for ref, hyp in cases:
        theirs = cp_module.cp_word_error_rate(meeteval_seglst(ref), meeteval_seglst(hyp))
        ours = cp_error_rate(ref, hyp, "word", normalise=False).counts
        assert (ours.errors, ours.reference_tokens) == (theirs.errors, theirs.length), (
            ref, hyp)


def test_pruned_matrix_equals_brute_force() -> None:
    rng = random.Random(3)
    for _ in range(60):
        refs = {f"r{k}": [rng.choice("abc") for _ in range(rng.randrange(0, 9))]
                for k in range(rng.randrange(1, 4))}
        hyps = {f"h{k}": [rng.choice("abc") for _ in range(rng.randrange(0, 9))]
                for k in range(rng.randrange(0, 5))}
        assert cp_error_counts(refs, hyps).counts.errors == brute_force_cp(refs, hyps)


def test_lower_bounds_never_exceed_distance() -> None:
    rng = random.Random(9)
    for _ in range(100):
        vocab = Vocabulary()
        refs = [vocab.encode([rng.choice("abcd") for _ in range(rng.randrange(0, 12))])
                for _ in range(3)]
        hyps = [vocab.encode([rng.choice("abcd") for _ in range(rng.randrange(0, 12))])
                for _ in range(3)]
        bounds = lower_bounds(refs, hyps, max(len(vocab), 1))
        for i, ref in enumerate(refs):
            for j, hyp in enumerate(hyps):
                assert 0 <= bounds[i, j] <= reference_distance(list(ref), list(hyp))


def test_pruning_many_speakers_with_unrelated_texts() -> None:
    # Six speakers with distinct vocabularies, hypothesis labels rotated and one token
    # wrong per speaker: the optimum pairs each speaker with its rotated label, 6 errors.
    rng = random.Random(2)
    refs = {f"r{k}": [f"w{k}_{rng.randrange(40)}" for _ in range(60)] for k in range(6)}
    hyps = {f"h{(k + 2) % 6}": v[:-1] + ["oops"] for k, v in enumerate(refs.values())}
    result = cp_error_counts(refs, hyps)
    assert result.counts == ErrorCounts(6, 0, 0, 360, 360)
    assert {(p.reference_speaker, p.hypothesis_speaker) for p in result.assignment} == {
        (f"r{k}", f"h{(k + 2) % 6}") for k in range(6)}


@pytest.mark.parametrize(("seed", "words"), [
    (7, ["hello", "world", "good", "day", "yes", "no"]),
    (8, ["a", "b"]),  # two words: ties everywhere
    (9, list("abcdefghij")),
])
def test_split_equals_meeteval_field_by_field(seed: int, words: list[str]) -> None:
    # Issue 10 item 22: not only the total but the insertion/deletion/substitution split,
    # the speaker counts and the assignment equal meeteval 0.4.3's on random pairs.
    cp_module = pytest.importorskip("meeteval.wer.wer.cp",
                                    reason="meeteval is a test-only comparison tool")
    rng = random.Random(seed)
    for _ in range(150):
        refs = {f"R{k}": " ".join(rng.choice(words) for _ in range(rng.randrange(1, 12)))
                for k in range(rng.randrange(1, 4))}
        hyps = {f"H{k}": " ".join(rng.choice(words) for _ in range(rng.randrange(0, 12)))
                for k in range(rng.randrange(1, 5))}
        theirs = cp_module.cp_word_error_rate(refs, hyps)
        ours = cp_error_counts({k: v.split() for k, v in refs.items()},
                               {k: v.split() for k, v in hyps.items()})
        assert (ours.counts.errors, ours.counts.reference_tokens, ours.counts.insertions,
                ours.counts.deletions, ours.counts.substitutions, ours.missed_speakers,
                ours.false_alarm_speakers) == (
            theirs.errors, theirs.length, theirs.insertions, theirs.deletions,
            theirs.substitutions, theirs.missed_speaker, theirs.falarm_speaker), (refs, hyps)
        assert {(p.reference_speaker, p.hypothesis_speaker) for p in ours.assignment} == set(
            theirs.assignment)


def test_kaldi_split_equals_kaldialign_on_random_pairs() -> None:
    # meeteval takes each pair's split from kaldialign.edit_distance; ours must be the same
    # on short pairs (many ties) and on long ones (the band and the dropped rows at work).
    kaldialign = pytest.importorskip("kaldialign", reason="installed with meeteval (test-only)")
    rng = random.Random(11)
    cases = []
    for _ in range(600):
        alphabet = "abcdefgh"[:rng.randrange(1, 9)]
        ref = [rng.choice(alphabet) for _ in range(rng.randrange(0, 30))]
        cases.append((ref, [rng.choice(alphabet) for _ in range(rng.randrange(0, 30))]))
    for length, vocabulary in ((3000, 5), (4000, 500)):
        ref = [str(rng.randrange(vocabulary)) for _ in range(length)]
        hyp = [t for t in ref if rng.random() > 0.05]
        hyp = [rng.choice(ref) if rng.random() < 0.05 else t for t in hyp]
        hyp = [x for t in hyp for x in ([t, rng.choice(ref)] if rng.random() < 0.05 else [t])]
        cases.append((ref, hyp))
    for ref, hyp in cases:
        encoded = encode_pair(ref, hyp)
        ours = kaldi_counts(*encoded, distance(*encoded))
        theirs = (kaldialign.edit_distance(ref, hyp) if ref
                  else {"sub": 0, "del": 0, "ins": len(hyp)})
        assert (ours.substitutions, ours.deletions, ours.insertions) == (
            theirs["sub"], theirs["del"], theirs["ins"]), (ref, hyp)


def test_tie_split_by_hand() -> None:
    # Reference "a b", hypothesis "b a": two substitutions, or a deletion and an insertion,
    # both cost 2. Kaldi (and so meeteval) prefers the insertion at the last cell, then
    # matches b and deletes a: 1 insertion + 1 deletion, no substitution.
    result = cp_error_counts({"A": ["a", "b"]}, {"X": ["b", "a"]})
    assert result.counts == ErrorCounts(substitutions=0, deletions=1, insertions=1,
                                        reference_tokens=2, hypothesis_tokens=2)


def _meeteval_files(fixtures_dir: Path) -> Path:
    folder = fixtures_dir / "meeteval-examples"
    if not folder.is_dir():
        pytest.skip(f"meeteval examples not found at {folder}")
    return folder


@pytest.mark.parametrize("normalise", [True, False])
def test_meeteval_fixture_stm(fixtures_dir: Path, normalise: bool) -> None:
    # PROVENANCE.md: cpWER ref.stm vs hyp.stm = 25 errors / 92 words (8 ins, 15 del, 2 sub).
    folder = _meeteval_files(fixtures_dir)
    result = cp_error_rate(STM.load(folder / "ref.stm").segments,
                           STM.load(folder / "hyp.stm").segments, "word", normalise=normalise)
    assert result.counts.errors == 25 and result.counts.reference_tokens == 92
    assert (result.counts.insertions, result.counts.deletions,
            result.counts.substitutions) == (8, 15, 2)
    # recordingB: reference Alice only, hypothesis Alice and Bob: one false-alarm speaker.
    assert (result.missed_speakers, result.false_alarm_speakers) == (0, 1)


def test_meeteval_fixture_seglst(fixtures_dir: Path) -> None:
    folder = _meeteval_files(fixtures_dir)
    result = cp_error_rate(SegLST.load(folder / "ref.seglst.json").segments,
                           SegLST.load(folder / "hyp.seglst.json").segments, "word")
    assert (result.counts.errors, result.counts.reference_tokens) == (25, 92)


def test_meeteval_fixture_with_uem(fixtures_dir: Path) -> None:
    # PROVENANCE.md: with uem.uem, 25 / 61. The UEM keeps recordingA [1, 4.5]: the segment
    # 5-6 (31 words, identical in ref and hyp) is dropped whole, 92 - 31 = 61; the 1-1
    # segment touches the region's start and is kept (meeteval's inclusive rule).
    folder = _meeteval_files(fixtures_dir)
    uem = UEM.load(folder / "uem.uem")
    regions = {f: uem.regions(f) for f in uem.file_ids()}
    ref = filter_by_uem(STM.load(folder / "ref.stm").segments, regions)
    hyp = filter_by_uem(STM.load(folder / "hyp.stm").segments, regions)
    result = cp_error_rate(ref, hyp, "word")
    assert (result.counts.errors, result.counts.reference_tokens) == (25, 61)


def test_a_session_with_more_distinct_tokens_than_below_the_surrogates_is_scored() -> None:
    """60 000 distinct words: token ids 55296.. are encoded as surrogate code points,
    which the bounds and the Kaldi split read as numbers too (unfixed: UnicodeEncodeError
    in utf-32, a traceback). Reference A = w0..w59999 + "x", B = "y"; hypothesis X =
    w0..w59999, Y = "y z": A-X 1 deletion, B-Y 1 insertion: 2 errors over 60 002 tokens."""
    words = [f"w{i}" for i in range(60_000)]
    result = cp_error_counts({"A": [*words, "x"], "B": ["y"]}, {"X": words, "Y": ["y", "z"]})
    assert (result.counts.substitutions, result.counts.deletions,
            result.counts.insertions, result.counts.reference_tokens) == (0, 1, 1, 60_002)
