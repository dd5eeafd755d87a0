"""Levenshtein alignment of token sequences, with the edit path.

Tokens are mapped to small integers and the integers to code points, so the distance
kernel works on flat code-point arrays whatever the token type (words, characters,
mixed runs). The kernel is rapidfuzz's bit-parallel Levenshtein (Hyyrö's algorithm, about
n*m/64 word operations), which is what makes a one-hour transcript score in well under a
second; a Python or numpy dynamic programme is one to two orders of magnitude slower.

Edit path convention: among alignments of equal cost the path is the one rapidfuzz's
backtrace returns, which is deterministic. How a tied path splits its cost into S, D and I
is a convention (meeteval/Kaldi may split ``ab`` -> ``ba`` differently); the total is not.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence, Set
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rapidfuzz.distance import Levenshtein

from .counts import ErrorCounts

if TYPE_CHECKING:  # numpy is imported by the edit path alone: counting needs no arrays
    import numpy as np
    from numpy.typing import NDArray

_MAX_CODE_POINT = 0x10FFFF
GAP = -1


class Vocabulary:
    """Assigns each distinct token an integer id, shared by every sequence it encodes.

    Ids are given in order of first sight. Only which tokens are equal matters to an
    alignment, not their ids, so one vocabulary may serve a whole corpus (``wer`` over
    many utterances) and give each pair the counts a vocabulary of its own would.
    """

    def __init__(self) -> None:
        self._codes: dict[Hashable, str] = {}

    def __len__(self) -> int:
        return len(self._codes)

    def encode(self, tokens: Sequence[Hashable]) -> str:
        """The tokens as a string with one code point per token id.

        >>> vocab = Vocabulary()
        >>> [ord(c) for c in vocab.encode(["a", "b", "a"])], len(vocab)
        ([0, 1, 0], 2)
        """
        codes = self._codes
        try:  # in a corpus most sequences hold no new token: one pass in C
            return "".join(map(codes.__getitem__, tokens))
        except KeyError:
            pass
        for token in tokens:
            if token not in codes:
                if len(codes) > _MAX_CODE_POINT:
                    raise ValueError("more distinct tokens than Unicode code points")
                codes[token] = chr(len(codes))
        return "".join(map(codes.__getitem__, tokens))


def encode_pair(reference: Sequence[Hashable], hypothesis: Sequence[Hashable]) -> tuple[str, str]:
    """Encode two token sequences with one shared vocabulary."""
    vocab = Vocabulary()
    return vocab.encode(reference), vocab.encode(hypothesis)


def distance(reference: str, hypothesis: str, cutoff: int | None = None,
             hint: int | None = None) -> int:
    """Edit distance of two encoded sequences; with ``cutoff``, any value above it is
    returned as ``cutoff + 1`` (which lets the kernel stop early). ``hint``, an expected
    distance, only picks a faster banded kernel (widened until exact): never the value.

    >>> distance("kitten", "sitting")
    3
    >>> distance("kitten", "sitting", cutoff=1)
    2
    """
    return int(Levenshtein.distance(reference, hypothesis, score_cutoff=cutoff,
                                    score_hint=hint))


def count_errors(reference: str, hypothesis: str, hint: int | None = None) -> ErrorCounts:
    """S, D, I of an optimal alignment of two encoded sequences (``hint`` as in
    :func:`distance`: the known or expected distance, for speed only).

    >>> count_errors("kitten", "sitting")
    ErrorCounts(substitutions=2, deletions=0, insertions=1, reference_tokens=6, hypothesis_tokens=7)
    """
    subs, dels, ins = edit_counts(reference, hypothesis, hint)
    return ErrorCounts(substitutions=subs, deletions=dels, insertions=ins,
                       reference_tokens=len(reference), hypothesis_tokens=len(hypothesis))


def edit_counts(reference: str | Sequence[str], hypothesis: str | Sequence[str],
                hint: int | None = None) -> tuple[int, int, int]:
    """``(S, D, I)`` of :func:`count_errors`, as plain integers (a corpus sums them).

    Lists of tokens are aligned as they are, without encoding: rapidfuzz compares their
    tokens by :func:`token_key`, which is exact where :func:`keys_distinct` holds for the
    tokens (the caller checks; ``corpus_error_counts`` does).

    >>> edit_counts("kitten", "sitting"), edit_counts("same", "same")
    ((2, 0, 1), (0, 0, 0))
    >>> edit_counts(["the", "cat"], ["a", "cat", "sat"])
    (1, 0, 1)
    """
    if reference == hypothesis:  # no edits: skip building an empty path
        return 0, 0, 0
    tags = [op[0] for op in Levenshtein.editops(reference, hypothesis,
                                                 score_hint=hint).as_list()]
    subs, dels = tags.count("replace"), tags.count("delete")
    return subs, dels, len(tags) - subs - dels


def token_key(token: str) -> int:
    """What rapidfuzz compares a token of a list by: its code point when it is one
    character, else its ``hash`` (rapidfuzz's rule for any sequence that is not a string;
    ``tests/transcripts/test_text_align.py`` checks it on tokens with chosen hashes).

    Two different tokens with one key would align as equal: within a process's hash
    seed that is a one-in-2**64 event for two words, which :func:`keys_distinct` rules
    out for the tokens at hand.

    >>> token_key("a"), token_key("ab") == hash("ab")
    (97, True)
    """
    return ord(token) if len(token) == 1 else hash(token)


def keys_distinct(tokens: Set[str]) -> bool:
    """Whether the distinct ``tokens`` have distinct :func:`token_key` values, so that
    rapidfuzz aligns lists of them exactly as it aligns their encoded strings.

    >>> keys_distinct({"a", "b", "alpha"})
    True
    """
    return len(set(map(token_key, tokens))) == len(tokens)


@dataclass(frozen=True)
class EditPath:
    """An optimal alignment as two parallel index arrays.

    Step ``k`` pairs ``reference[ref_index[k]]`` with ``hypothesis[hyp_index[k]]``; a gap is
    ``-1`` (a deletion has ``hyp_index == -1``, an insertion ``ref_index == -1``); ``equal``
    marks exact matches. Later stages (punctuation F1, timestamp anchors) read matched pairs
    from here instead of re-aligning.
    """

    ref_index: NDArray[np.int64]
    hyp_index: NDArray[np.int64]
    equal: NDArray[np.bool_]

    def matched_pairs(self) -> NDArray[np.int64]:
        """``(n, 2)`` array of (reference index, hypothesis index) of exact matches."""
        import numpy as np

        return np.stack([self.ref_index[self.equal], self.hyp_index[self.equal]], axis=1)

    def counts(self) -> ErrorCounts:
        """S, D, I read off the path."""
        import numpy as np

        ref_gap = self.ref_index == GAP
        hyp_gap = self.hyp_index == GAP
        subs = int(np.count_nonzero(~ref_gap & ~hyp_gap & ~self.equal))
        return ErrorCounts(substitutions=subs, deletions=int(np.count_nonzero(hyp_gap)),
                           insertions=int(np.count_nonzero(ref_gap)),
                           reference_tokens=int(np.count_nonzero(~ref_gap)),
                           hypothesis_tokens=int(np.count_nonzero(~hyp_gap)))


def edit_path(reference: str, hypothesis: str) -> EditPath:
    """Full alignment (matches included) of two encoded sequences.

    >>> path = edit_path("abcd", "axd")
    >>> path.ref_index.tolist(), path.hyp_index.tolist(), path.equal.tolist()
    ([0, 1, 2, 3], [0, 1, -1, 2], [True, False, False, True])
    >>> path.counts().errors
    2
    """
    import numpy as np

    ref_parts: list[NDArray[np.int64]] = []
    hyp_parts: list[NDArray[np.int64]] = []
    eq_parts: list[NDArray[np.bool_]] = []
    for op in Levenshtein.opcodes(reference, hypothesis):
        tag, r0, r1, h0, h1 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag in ("equal", "replace"):
            ref_parts.append(np.arange(r0, r1, dtype=np.int64))
            hyp_parts.append(np.arange(h0, h1, dtype=np.int64))
            eq_parts.append(np.full(r1 - r0, tag == "equal"))
        elif tag == "delete":
            ref_parts.append(np.arange(r0, r1, dtype=np.int64))
            hyp_parts.append(np.full(r1 - r0, GAP, dtype=np.int64))
            eq_parts.append(np.zeros(r1 - r0, dtype=bool))
        else:
            ref_parts.append(np.full(h1 - h0, GAP, dtype=np.int64))
            hyp_parts.append(np.arange(h0, h1, dtype=np.int64))
            eq_parts.append(np.zeros(h1 - h0, dtype=bool))
    if not ref_parts:
        empty = np.zeros(0, dtype=np.int64)
        return EditPath(empty, empty.copy(), np.zeros(0, dtype=bool))
    return EditPath(np.concatenate(ref_parts), np.concatenate(hyp_parts),
                    np.concatenate(eq_parts))
