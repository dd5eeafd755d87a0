"""S/D/I of an optimal alignment with Kaldi's tie rule, the split meeteval reports for cpWER.

When several alignments have the least cost, which one is counted decides how the cost
splits into substitutions, deletions and insertions. meeteval 0.4.3 scores each cpWER
speaker pair with ``kaldialign.edit_distance``, Kaldi's ``LevenshteinEditDistance``: a
dynamic programme over the hypothesis (outer loop) and the reference (inner loop) in
which every cell keeps the S/D/I counts of the one predecessor it chose, choosing

1. the diagonal (match or substitution) only when it is strictly cheaper than both
   the deletion and the insertion;
2. otherwise the deletion (reference token unmatched) when it is strictly cheaper than
   the insertion;
3. otherwise the insertion.

At a cell, the cheapest candidates are exactly the predecessors that lie on a least-cost
path to it, so the rule reads: take the insertion if it is on a least-cost path, else
the deletion if it is, else the diagonal. The counts at the last cell are those of the
chain of such choices back to the start, which is a traceback:
``D[m][n] - D[m][n-1] = 1`` says the insertion is on a least-cost path,
``D[m][n] - D[m-1][n] = 1`` the deletion.

Those differences are what the bit-parallel Levenshtein algorithm (Myers 1999, Hyyrö's
formulation) computes, one hypothesis token at a time, for a whole column of reference
rows in a few integer operations: Python's integers serve as bit vectors. Only rows in
the diagonal band ``|k| + |k - (N - M)| <= d`` (``k`` = hypothesis index minus reference
index, ``d`` the distance) can lie on a least-cost alignment, so the bit vectors hold a
window that follows the band down the matrix. Rows dropped above the window are taken to
grow by one per column, and rows added below it to grow by one per row; both can only
overstate a cell's cost, never for a cell on a least-cost alignment, so every choice on
the chain is Kaldi's.

rapidfuzz's backtrace (used for WER, as jiwer does) splits some ties differently: for
``a b`` against ``b a`` it counts two substitutions, Kaldi one insertion and one deletion.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .bounds import code_points
from .counts import ErrorCounts

_DROP_CHUNK = 256  # rows dropped above the band at a time (fewer, larger shifts)


def kaldi_counts(reference: str, hypothesis: str, distance: int) -> ErrorCounts:
    """S, D, I of two encoded sequences (one code point per token) whose edit distance is
    ``distance``, split as Kaldi's ``LevenshteinEditDistance`` splits it (see the module).

    Hand check: reference ``a b``, hypothesis ``b a`` (distance 2). Three alignments cost
    2: two substitutions, D(a) b I(a), and I(b) a D(b). At the last cell the diagonal
    (a substitution, cost 1 + 1) is not cheaper than the deletion (1 + 1) or the insertion
    (1 + 1), and the deletion is not cheaper than the insertion: Kaldi inserts, then
    matches ``b`` and deletes ``a``: 1 insertion and 1 deletion.

    >>> kaldi_counts("ab", "ba", 2)
    ErrorCounts(substitutions=0, deletions=1, insertions=1, reference_tokens=2, hypothesis_tokens=2)
    >>> kaldi_counts("abc", "xbz", 2)
    ErrorCounts(substitutions=2, deletions=0, insertions=0, reference_tokens=3, hypothesis_tokens=3)
    """
    ref, hyp = code_points(reference), code_points(hypothesis)
    rows, columns = ref.size, hyp.size
    skew = columns - rows
    low = -((distance - skew) // 2)  # smallest diagonal on a least-cost path: ceil((K-d)/2)
    high = (skew + distance) // 2  # largest: floor((K+d)/2)
    masks = _match_masks(ref)
    # The window holds rows top+1 .. top+width as bits 0 .. width-1: ``vp`` bit i set when
    # row top+1+i is one more than the row above it in the current column, ``vn`` when one
    # less. Column 0 (no hypothesis token yet) grows by one per row: all ``vp``.
    top, width = 0, 0
    vp = vn = 0
    window_tops = [0] * (columns + 1)
    insertion_bits = [0] * (columns + 1)  # D[m][n] - D[m][n-1] = 1, per column
    deletion_bits = [0] * (columns + 1)  # D[m][n] - D[m-1][n] = 1, per column
    tokens = hyp.tolist()
    for n in range(1, columns + 1):
        wanted_top = n - high - 2
        if wanted_top - top >= _DROP_CHUNK:
            drop = wanted_top - top
            vp, vn, top, width = vp >> drop, vn >> drop, wanted_top, max(0, width - drop)
        bottom = n - low + 1
        if bottom > rows:
            bottom = rows
        if bottom > top + width:  # new rows below: one more per row than the row above
            added = bottom - top - width
            vp |= ((1 << added) - 1) << width
            width += added
        mask = (1 << width) - 1
        x = (masks.get(tokens[n - 1], 0) >> top) & mask | vn
        d0 = (((x & vp) + vp) ^ vp) | x
        hp = (vn | ~(d0 | vp)) & mask
        hn = vp & d0
        shifted_hp = ((hp << 1) | 1) & mask  # the row above the window grows by one
        vp = ((hn << 1) | ~(d0 | shifted_hp)) & mask
        vn = d0 & shifted_hp
        window_tops[n], insertion_bits[n], deletion_bits[n] = top, hp, vp
    return _trace(ref, hyp, distance, window_tops, insertion_bits, deletion_bits)


def _trace(ref: NDArray[np.uint32], hyp: NDArray[np.uint32], distance: int,
           window_tops: list[int], insertion_bits: list[int],
           deletion_bits: list[int]) -> ErrorCounts:
    """Follow Kaldi's choices back from the last cell and count S, D and I."""
    m, n = ref.size, hyp.size
    substitutions = deletions = insertions = 0
    while m > 0 and n > 0:
        bit = m - 1 - window_tops[n]
        if bit >= 0 and (insertion_bits[n] >> bit) & 1:
            insertions += 1
            n -= 1
        elif bit >= 0 and (deletion_bits[n] >> bit) & 1:
            deletions += 1
            m -= 1
        else:
            substitutions += int(ref[m - 1] != hyp[n - 1])
            m, n = m - 1, n - 1
    insertions += n
    deletions += m
    counts = ErrorCounts(substitutions=substitutions, deletions=deletions,
                         insertions=insertions, reference_tokens=ref.size,
                         hypothesis_tokens=hyp.size)
    if counts.errors != distance:
        raise AssertionError(f"Kaldi traceback found {counts.errors} edits, the distance is "
                             f"{distance}")
    return counts


def _match_masks(ref: NDArray[np.uint32]) -> dict[int, int]:
    """For each token, the bit vector of the reference rows holding it (bit i: row i+1)."""
    tokens, index = np.unique(ref, return_inverse=True)
    packed = np.zeros((tokens.size, (ref.size + 7) // 8), dtype=np.uint8)
    positions = np.arange(ref.size)
    np.bitwise_or.at(packed, (index, positions // 8),
                     np.left_shift(1, positions % 8).astype(np.uint8))
    return {token: int.from_bytes(row.tobytes(), "little")
            for token, row in zip(tokens.tolist(), packed, strict=True)}

