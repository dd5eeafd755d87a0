"""WER, CER and MER of one reference/hypothesis text pair under the main protocol."""

from __future__ import annotations

from .align import count_errors, encode_pair
from .counts import ErrorCounts
from .normalize import normalize
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
