"""Numbers and terms: precision, recall and F1 (spec: 归一化与指标).

Both are counted as multisets: a number or term found ``r`` times in the reference and ``h``
times in the hypothesis contributes ``min(r, h)`` matches. Terms come only from the
sample's own reference metadata (never a global list tuned to a test set); each term is
normalised like the transcripts and counted as a whole-token occurrence, so ``gpu`` does
not match inside ``gpus`` while ``深度学习`` matches inside CJK text that has no spaces.

Numbers are strings of the digits 0-9 in the NFKC text (which turns full-width ``２０１``
into ``201``) with thousands separators (``1,000``) joined and one decimal point kept
(``3.5``), so ``3.5`` and ``35`` stay different numbers. Digits of other scripts
(Arabic-Indic ``٣٥``, Devanagari ``३५``) are not numbers here, as spelled-out numbers are
not: converting them would be a script-specific replacement rule, and matching them
unconverted (as a Unicode digit class would) made ``٣٥`` a number that never equals ``35``
and ``3٥`` a number at all.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

from .normalize import normalize
from .prf import MatchCounts
from .tokenize import mixed_tokens

_NUMBER = re.compile(r"[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?")


def numbers(text: str) -> list[str]:
    """Numbers in ``text`` in order, thousands separators removed.

    >>> numbers("Pay 1,000 yuan on 3.5 days, room ２０１。")
    ['1000', '3.5', '201']
    >>> numbers("room ٣٥ or 3٥")  # Arabic-Indic digits are not 0-9
    ['3']
    """
    nfkc = unicodedata.normalize("NFKC", text)
    return [m.group().replace(",", "") for m in _NUMBER.finditer(nfkc)]


def _multiset_match(reference: Iterable[str], hypothesis: Iterable[str]) -> MatchCounts:
    ref, hyp = Counter(reference), Counter(hypothesis)
    return MatchCounts(matched=sum((ref & hyp).values()), reference=sum(ref.values()),
                       hypothesis=sum(hyp.values()))


def number_counts(reference: str, hypothesis: str) -> MatchCounts:
    """Number matches.

    >>> number_counts("call 110 or 120 at 3.5", "call 110 or 112 at 35").report_dict()["matched"]
    1
    """
    return _multiset_match(numbers(reference), numbers(hypothesis))


def _occurrences(term_tokens: list[str], text_tokens: list[str]) -> int:
    """Non-overlapping occurrences of a token sequence in another."""
    count, index, width = 0, 0, len(term_tokens)
    while index + width <= len(text_tokens):
        if text_tokens[index:index + width] == term_tokens:
            count += 1
            index += width
        else:
            index += 1
    return count


def term_counts(reference: str, hypothesis: str, terms: Iterable[str]) -> MatchCounts:
    """Term matches for the sample's own term list (tokens as in MER).

    >>> m = term_counts("我们用 PyTorch 训练大模型", "我们用 pytorch 训练达模型",
    ...                 ["PyTorch", "大模型"])
    >>> m.matched, m.reference, m.hypothesis, m.recall
    (1, 2, 1, 0.5)

    Terms that normalise alike are one term, counted once: the three spellings below
    are all "gpu", which the reference says twice:

    >>> term_counts("the GPU and the gpu", "a gpu", ["GPU", "gpu", "G.P.U"]).report_dict()[
    ...     "reference"]
    2
    """
    ref_tokens = mixed_tokens(normalize(reference))
    hyp_tokens = mixed_tokens(normalize(hypothesis))
    total = MatchCounts(0, 0, 0)
    counted: set[tuple[str, ...]] = set()
    for term in terms:
        term_tokens = mixed_tokens(normalize(term))
        if not term_tokens:
            raise ValueError(f"term {term!r} is empty after normalisation")
        if tuple(term_tokens) in counted:  # "GPU" and "gpu" are one term once normalised
            continue
        counted.add(tuple(term_tokens))
        r = _occurrences(term_tokens, ref_tokens)
        h = _occurrences(term_tokens, hyp_tokens)
        total += MatchCounts(min(r, h), r, h)
    return total
