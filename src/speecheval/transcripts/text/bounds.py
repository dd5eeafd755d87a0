"""Cheap lower bounds on the edit distance between many pairs of encoded sequences.

cpWER needs the edit distance of every reference/hypothesis speaker pair, but only the
pairs that can be part of an optimal assignment need an exact value. Two classic bounds,
both computed for all pairs at once with numpy, let the others be skipped:

- tokens (q = 1): an alignment matches at most ``sum_t min(count_r(t), count_h(t))``
  tokens, so ``d >= max(|r|, |h|) - that sum``;
- bigrams (q = 2, the q-gram lemma of Jokinen and Ukkonen): one edit destroys at most q
  q-grams, so ``d >= (max(|r|, |h|) - q + 1 - shared q-grams) / q``.

The bigram bound is what separates speakers who say different things: two unrelated
speakers share most characters but few character pairs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray


def code_points(text: str) -> NDArray[np.uint32]:
    """The code points of an encoded token sequence (one per token).

    Token ids 55296 to 57343 are encoded as the surrogate code points U+D800..U+DFFF
    (:class:`~.align.Vocabulary`), which a strict UTF-32 encoder refuses; they are passed
    through, so a session with that many distinct tokens is scored, not stopped.

    >>> code_points("a" + chr(0xD800)).tolist()
    [97, 55296]
    """
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _codes(text: str) -> NDArray[np.int64]:
    return code_points(text).astype(np.int64)


def _histogram(keys: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    values, counts = np.unique(keys, return_counts=True)
    return values, counts.astype(np.int64)


def _shared(a: tuple[NDArray[np.int64], NDArray[np.int64]],
            b: tuple[NDArray[np.int64], NDArray[np.int64]]) -> int:
    """Size of the multiset intersection of two histograms."""
    _, ia, ib = np.intersect1d(a[0], b[0], assume_unique=True, return_indices=True)
    return int(np.minimum(a[1][ia], b[1][ib]).sum())


def lower_bounds(refs: Sequence[str], hyps: Sequence[str], alphabet: int) -> NDArray[np.int64]:
    """``bounds[i, j] <= distance(refs[i], hyps[j])`` for every pair (encoded sequences).

    ``alphabet`` is one more than the largest code point used (the vocabulary size).

    >>> lower_bounds(["abcd", ""], ["dcba", "ab"], alphabet=ord("e")).tolist()
    [[2, 2], [4, 2]]
    """
    ref_codes = [_codes(r) for r in refs]
    hyp_codes = [_codes(h) for h in hyps]
    uni_r = [_histogram(c) for c in ref_codes]
    uni_h = [_histogram(c) for c in hyp_codes]
    bi_r = [_histogram(c[:-1] * alphabet + c[1:]) for c in ref_codes]
    bi_h = [_histogram(c[:-1] * alphabet + c[1:]) for c in hyp_codes]
    bounds = np.zeros((len(refs), len(hyps)), dtype=np.int64)
    for i, ref in enumerate(refs):
        for j, hyp in enumerate(hyps):
            longest = max(len(ref), len(hyp))
            unigram = longest - _shared(uni_r[i], uni_h[j])
            bigram = -(-(longest - 1 - _shared(bi_r[i], bi_h[j])) // 2)  # ceil division
            bounds[i, j] = max(unigram, bigram, 0)
    return bounds
