"""Edit alignment: against an independent dynamic programme and against jiwer."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein
from text_reference import reference_distance

from speecheval.transcripts.text import rates
from speecheval.transcripts.text.align import (
    Vocabulary,
    count_errors,
    distance,
    edit_counts,
    edit_path,
    encode_pair,
    keys_distinct,
    token_key,
)
from speecheval.transcripts.text.counts import ErrorCounts
from speecheval.transcripts.text.rates import corpus_error_counts, text_error_counts


def random_pair(rng: random.Random) -> tuple[list[str], list[str]]:
    alphabet = "abcde"
    ref = [rng.choice(alphabet) for _ in range(rng.randrange(0, 15))]
    hyp = [rng.choice(alphabet) for _ in range(rng.randrange(0, 15))]
    return ref, hyp


def test_distance_and_path_match_textbook_dp() -> None:
    rng = random.Random(4)
    for _ in range(400):
        ref, hyp = random_pair(rng)
        a, b = encode_pair(ref, hyp)
        expected = reference_distance(ref, hyp)
        counts = count_errors(a, b)
        assert distance(a, b) == expected
        assert counts.errors == expected
        path = edit_path(a, b)
        assert path.counts().errors == expected
        # The path visits every token of each side exactly once, in order.
        assert path.ref_index[path.ref_index >= 0].tolist() == list(range(len(ref)))
        assert path.hyp_index[path.hyp_index >= 0].tolist() == list(range(len(hyp)))
        # Exact matches really are equal tokens.
        for i, j in path.matched_pairs():
            assert ref[i] == hyp[j]


def test_kitten_sitting_by_hand() -> None:
    # kitten -> sitting: k->s, e->i substitutions, g inserted: S=2, D=0, I=1, N=6.
    assert count_errors("kitten", "sitting") == ErrorCounts(2, 0, 1, 6, 7)


def test_cutoff_caps_distance() -> None:
    # distance("abcdef", "") is 6; with cutoff 2 the kernel reports 3 (= cutoff + 1).
    assert distance("abcdef", "", cutoff=2) == 3
    assert distance("abcdef", "abcdef", cutoff=0) == 0


def test_empty_sequences() -> None:
    path = edit_path("", "")
    assert path.ref_index.size == 0 and path.counts() == ErrorCounts.zero()
    assert count_errors("", "xy") == ErrorCounts(0, 0, 2, 0, 2)


def test_sum_gives_corpus_micro() -> None:
    # Sample 1: 1 error over 4 tokens; sample 2: 3 errors over 1 token.
    # Corpus micro = (1 + 3) / (4 + 1) = 0.8, not the sample mean (0.25 + 3) / 2.
    a = text_error_counts("a b c d", "a b c x", "word")
    b = text_error_counts("z", "y w v", "word")
    total = sum([a, b])
    assert isinstance(total, ErrorCounts)
    assert total.error_rate == pytest.approx(0.8)


def test_counts_invariants_refuse_bad_values() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        ErrorCounts(-1, 0, 0, 0, 0)
    with pytest.raises(ValueError, match="substitutions"):
        ErrorCounts(3, 0, 0, 2, 2)


def test_agrees_with_jiwer_on_random_word_pairs() -> None:
    jiwer = pytest.importorskip("jiwer", reason="jiwer is a test-only comparison tool")
    rng = random.Random(11)
    words = ["alpha", "beta", "gamma", "delta", "eps"]
    for _ in range(200):
        ref = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 12)))
        hyp = " ".join(rng.choice(words) for _ in range(rng.randrange(0, 12)))
        ours = text_error_counts(ref, hyp, "word")
        theirs = jiwer.process_words(ref, hyp) if hyp else None
        if theirs is None:  # jiwer refuses an empty hypothesis string; all deletions
            assert ours.deletions == len(ref.split())
            continue
        assert ours.errors == theirs.substitutions + theirs.deletions + theirs.insertions
        assert (ours.substitutions, ours.deletions, ours.insertions) == (
            theirs.substitutions, theirs.deletions, theirs.insertions)


def test_agrees_with_jiwer_cer_on_chinese() -> None:
    jiwer = pytest.importorskip("jiwer", reason="jiwer is a test-only comparison tool")
    rng = random.Random(5)
    chars = "我们你他好的是不了在"
    for _ in range(200):
        ref = "".join(rng.choice(chars) for _ in range(rng.randrange(1, 20)))
        hyp = "".join(rng.choice(chars) for _ in range(rng.randrange(1, 20)))
        ours = text_error_counts(ref, hyp, "char")
        assert ours.error_rate == pytest.approx(jiwer.cer(ref, hyp))


def _tied_corpus(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """Pairs over five words (punctuated and cased, for the normalisation): with so few
    tokens most pairs have several optimal alignments, so the tie-breaking is tested."""
    words = ["Alpha,", "beta", "GAMMA", "delta.", "eps", "我们", "好"]
    return [(" ".join(rng.choice(words) for _ in range(rng.randrange(0, 14))),
             " ".join(rng.choice(words) for _ in range(rng.randrange(0, 14))))
            for _ in range(n)]


@pytest.mark.parametrize("unit", ["word", "char", "mixed"])
def test_corpus_counts_are_the_pairs_counts(unit: str) -> None:
    """The corpus path (token lists aligned as they are, words split once) gives every
    pair the S, D and I of the simple path (a vocabulary of its own, text joined and
    split); so does one vocabulary shared by every pair."""
    pairs = _tied_corpus(random.Random(29), 400)
    simple = [text_error_counts(ref, hyp, unit) for ref, hyp in pairs]  # type: ignore[arg-type]
    assert corpus_error_counts(pairs, unit) == sum(simple, ErrorCounts.zero())  # type: ignore[arg-type]
    shared = Vocabulary()
    for (ref, hyp), alone in zip(pairs, simple, strict=True):
        assert corpus_error_counts([(ref, hyp)], unit) == alone  # type: ignore[arg-type]
        tokens = [ref.split(), hyp.split()]
        a, b = (shared.encode(t) for t in tokens)
        assert edit_counts(a, b) == edit_counts(*encode_pair(*tokens))
    assert len(shared) == 7


def test_corpus_counts_equal_jiwers_pair_by_pair() -> None:
    """jiwer's ``process_words`` over the same normalised words: S, D, I of each pair
    and of the corpus (jiwer refuses an empty reference, so those pairs are left out)."""
    jiwer = pytest.importorskip("jiwer", reason="jiwer is a test-only comparison tool")
    from speecheval.transcripts.text.normalize import normalize

    pairs = [(normalize(r), normalize(h)) for r, h in _tied_corpus(random.Random(3), 600)]
    pairs = [(r, h) for r, h in pairs if r]
    theirs = jiwer.process_words([r for r, _ in pairs], [h for _, h in pairs])
    ours = corpus_error_counts(pairs, "word")
    assert (ours.substitutions, ours.deletions, ours.insertions) == (
        theirs.substitutions, theirs.deletions, theirs.insertions)
    for ref, hyp in pairs[:150]:
        one, their = corpus_error_counts([(ref, hyp)], "word"), jiwer.process_words(ref, hyp)
        assert (one.substitutions, one.deletions, one.insertions) == (
            their.substitutions, their.deletions, their.insertions)


def test_a_new_token_after_known_ones_gets_the_next_id() -> None:
    vocab = Vocabulary()
    assert [ord(c) for c in vocab.encode(["a", "b"])] == [0, 1]
    assert [ord(c) for c in vocab.encode(["b", "c", "a"])] == [1, 2, 0]  # c is new: id 2
    assert edit_counts("ab", "ab") == (0, 0, 0)


def test_path_arrays_are_int64() -> None:
    path = edit_path(*encode_pair(["a", "b"], ["b"]))
    assert path.ref_index.dtype == np.int64 and path.equal.dtype == np.bool_


def test_documented_differences_from_jiwer_defaults() -> None:
    jiwer = pytest.importorskip("jiwer", reason="jiwer is a test-only comparison tool")
    # jiwer counts the space as a character: "ab cd" -> "abcd" is 1 deletion over 5 = 0.2.
    # Our CER tokens exclude whitespace: a b c d on both sides, 0 errors.
    assert jiwer.cer("ab cd", "abcd") == pytest.approx(0.2)
    assert text_error_counts("ab cd", "abcd", "char").errors == 0
    # jiwer does not normalise: "Hello," vs "hello" is a substitution (1 of 2 words).
    assert jiwer.wer("Hello, world", "hello world") == pytest.approx(0.5)
    assert text_error_counts("Hello, world", "hello world", "word").errors == 0


class _ChosenHash(str):
    """A token whose hash is chosen, to make two different tokens collide."""

    def __hash__(self) -> int:
        return 12345


def test_rapidfuzz_compares_listed_tokens_by_token_key() -> None:
    """rapidfuzz's rule for a token list, which ``token_key`` restates: two different
    words with one hash align as equal; single characters go by code point, whatever
    their hash; a word whose hash is a character's code point equals that character."""
    assert edit_counts([_ChosenHash("ab")], [_ChosenHash("cd")]) == (0, 0, 0)
    assert edit_counts([_ChosenHash("a")], [_ChosenHash("c")]) == (1, 0, 0)
    assert Levenshtein.distance([_ChosenHash("ab")], [chr(12345)]) == 0
    assert [token_key(t) for t in ("a", _ChosenHash("ab"), _ChosenHash("a"))] == [97, 12345, 97]
    assert not keys_distinct({_ChosenHash("ab"), _ChosenHash("cd")})
    assert keys_distinct({_ChosenHash("a"), _ChosenHash("c"), "ab"})
    # encoded through a vocabulary the two words differ: one substitution
    assert edit_counts(*encode_pair([_ChosenHash("ab")], [_ChosenHash("cd")])) == (1, 0, 0)


@pytest.mark.parametrize("unit", ["word", "char", "mixed"])
def test_corpus_counts_when_keys_collide_are_the_encoded_ones(
        unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where two tokens share a key, the corpus is counted again through a vocabulary:
    the same S, D and I as the simple path (the collision forced by the check)."""
    pairs = _tied_corpus(random.Random(7), 300)
    simple = sum((text_error_counts(r, h, unit) for r, h in pairs),  # type: ignore[arg-type]
                 ErrorCounts.zero())
    monkeypatch.setattr(rates, "keys_distinct", lambda tokens: False)
    assert corpus_error_counts(pairs, unit) == simple  # type: ignore[arg-type]
