"""Punctuation F1 over an edit alignment of the punctuation sequences (spec: 归一化与指标).

Both texts are NFKC-normalised (so ``，`` and ``,`` are the same mark) and reduced to their
punctuation characters in order; the two sequences are aligned by Levenshtein and the
exact matches on the path are the true positives. This is the spec's approximation: it
checks which marks a system writes and in what order, not where among the words.
"""

from __future__ import annotations

import unicodedata

import numpy as np

from .align import edit_path, encode_pair
from .normalize import is_punctuation
from .prf import MatchCounts


def punctuation_marks(text: str) -> list[str]:
    """Punctuation characters of ``text`` after NFKC, in order.

    >>> punctuation_marks("你好，世界！ Hi, there.")
    [',', '!', ',', '.']
    """
    return [c for c in unicodedata.normalize("NFKC", text) if is_punctuation(c)]


def punctuation_counts(reference: str, hypothesis: str) -> MatchCounts:
    """Matched marks on the alignment of the two punctuation sequences.

    Hand check: reference marks ``, , .``; hypothesis marks ``, .``; the alignment keeps
    ``,`` and ``.`` and deletes one ``,``: 2 matched, precision 2/2, recall 2/3, F1 4/5.

    >>> m = punctuation_counts("a, b, c.", "a, b c.")
    >>> m.matched, m.precision, m.recall, m.f1
    (2, 1.0, 0.6666666666666666, 0.8)
    """
    ref_marks, hyp_marks = punctuation_marks(reference), punctuation_marks(hypothesis)
    path = edit_path(*encode_pair(ref_marks, hyp_marks))
    return MatchCounts(matched=int(np.count_nonzero(path.equal)), reference=len(ref_marks),
                       hypothesis=len(hyp_marks))
