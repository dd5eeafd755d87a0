"""Token units of the error rates (spec: 归一化与指标).

- ``word`` (WER): whitespace-separated words of the normalised text (English/Latin words).
- ``char`` (CER): every non-space character: CJK characters and all remaining characters.
- ``mixed`` (MER, the *mixed error rate* for code-switching): a maximal run of letters or
  digits outside the CJK scripts is one token and each CJK character is one token; any
  other non-space character is a token of its own. This is not jiwer's ``mer`` (match
  error rate), which is a different quantity.

Inputs are expected to be normalised (:func:`~speecheval.transcripts.text.normalize.normalize`).
"""

from __future__ import annotations

import re
from typing import Literal, get_args

Unit = Literal["word", "char", "mixed"]
UNITS: tuple[str, ...] = get_args(Unit)

# Han (with extensions and compatibility ideographs), kana, Hangul and CJK radicals: the
# scripts written without spaces, where one character is one token in CER and MER.
_CJK_RANGES = (
    "\u2e80-\u2fdf"  # CJK and Kangxi radicals
    "\u3005-\u3007\u3021-\u3029\u3038-\u303c"  # iteration marks, Hangzhou numerals
    "\u3040-\u30ff\u31f0-\u31ff"  # Hiragana, Katakana, Katakana extension
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"  # Hangul jamo and syllables
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han: extension A, unified, compatibility
    "\U00020000-\U0003134f"  # Han extensions B-G
)
_CJK = f"[{_CJK_RANGES}]"
# A run of letters and digits that are not CJK; any other non-space character alone.
_MIXED_TOKEN = re.compile(rf"{_CJK}|(?:(?!{_CJK})[^\W_])+|\S")


def is_cjk(char: str) -> bool:
    """True for a character of a CJK script (one token in CER and MER).

    >>> is_cjk("中"), is_cjk("か"), is_cjk("한"), is_cjk("a")
    (True, True, True, False)
    """
    return re.fullmatch(_CJK, char) is not None


def word_tokens(normalized: str) -> list[str]:
    """WER tokens.

    >>> word_tokens("hello world 42")
    ['hello', 'world', '42']
    """
    return normalized.split()


def char_tokens(normalized: str) -> list[str]:
    """CER tokens: every character except whitespace.

    >>> char_tokens("ab 中文")
    ['a', 'b', '中', '文']
    """
    return list("".join(normalized.split()))


def mixed_tokens(normalized: str) -> list[str]:
    """MER tokens for code-switched text.

    >>> mixed_tokens("我们用python3写api接口")
    ['我', '们', '用', 'python3', '写', 'api', '接', '口']
    >>> mixed_tokens("gpu 很快 $5")
    ['gpu', '很', '快', '$', '5']
    """
    return _MIXED_TOKEN.findall(normalized)


def tokens(normalized: str, unit: Unit) -> list[str]:
    """Tokens of ``normalized`` text in ``unit``."""
    if unit == "word":
        return word_tokens(normalized)
    if unit == "char":
        return char_tokens(normalized)
    if unit == "mixed":
        return mixed_tokens(normalized)
    raise ValueError(f"unknown token unit {unit!r}; expected one of {UNITS}")
