"""WER, CER and MER of reference/hypothesis text pairs under the main protocol: one pair
(:func:`text_error_counts`) or a corpus of them (:func:`corpus_error_counts`)."""

from __future__ import annotations

from collections.abc import Iterable

from .align import Vocabulary, count_errors, edit_counts, encode_pair
from .counts import ErrorCounts
from .normalize import normalize, normalized_words
from .tokenize import Unit, tokens


def text_error_counts(reference: str, hypothesis: str, unit: Unit) -> ErrorCounts:
    """Normalise both texts, tokenise in ``unit`` and count S, D, I against the reference.

    Hand check, CER: ``你好，世界`` -> 4 tokens 你 好 世 界; ``你号世界！`` -> 你 号 世 界;
    one substitution (好 -> 号), punctuation removed on both sides: 1 / 4.

    >>> text_error_counts("你好，世界", "你号世界！", "char").error_rate
    0.25
    >>> text_error_counts("我用Python", "我用 python 3", "mixed").errors
    1
    """
    ref, hyp = encode_pair(tokens(normalize(reference), unit), tokens(normalize(hypothesis), unit))
    return count_errors(ref, hyp)


def corpus_error_counts(pairs: Iterable[tuple[str, str]], unit: Unit) -> ErrorCounts:
    """The sum of :func:`text_error_counts` over ``(reference, hypothesis)`` pairs.

    The same alignments, done the way a corpus of ten thousand utterances is fast: the
    text is split into words once (not joined and split again), one vocabulary encodes
    every utterance (only which tokens are equal matters to an alignment), and the counts
    are summed as integers, with one :class:`ErrorCounts` at the end. The tests check it
    against the sum of :func:`text_error_counts` and against jiwer.

    >>> corpus_error_counts([("the cat sat", "the cat sat down"), ("hello", "hello")],
    ...                     "word").error_rate
    0.25
    """
    vocab = Vocabulary()
    subs = dels = ins = ref_tokens = hyp_tokens = 0
    for reference, hypothesis in pairs:
        ref = vocab.encode(_normalized_tokens(reference, unit))
        hyp = vocab.encode(_normalized_tokens(hypothesis, unit))
        s, d, i = edit_counts(ref, hyp)
        subs, dels, ins = subs + s, dels + d, ins + i
        ref_tokens, hyp_tokens = ref_tokens + len(ref), hyp_tokens + len(hyp)
    return ErrorCounts(substitutions=subs, deletions=dels, insertions=ins,
                       reference_tokens=ref_tokens, hypothesis_tokens=hyp_tokens)


def _normalized_tokens(text: str, unit: Unit) -> list[str]:
    """``tokens(normalize(text), unit)``, the words not joined again for WER."""
    words = normalized_words(text)
    return words if unit == "word" else tokens(" ".join(words), unit)
