"""Text normalisation of the main protocol (spec: 归一化与指标).

The rules are exactly the specification's and nothing more: Unicode NFKC, case folding,
Unicode punctuation removed and whitespace differences removed. There are no
sample-specific replacements (no number spelling, no contraction lists, no alias tables),
because such rules reward whoever wrote them for the test set.

Punctuation means every character whose Unicode general category starts with ``P``. It is
deleted, not replaced by a space, so ``all-hands`` stays one word and ``don't`` becomes
``dont`` on both sides; symbols (category ``S``: ``+``, ``$``, ``%``) are kept because they
carry content.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache


@lru_cache(maxsize=4096)
def is_punctuation(char: str) -> bool:
    """True for a Unicode punctuation character (general category ``P*``).

    >>> [is_punctuation(c) for c in ",，。-'$"]
    [True, True, True, True, True, False]
    """
    return unicodedata.category(char).startswith("P")


class _CleanTable(dict[int, int | str | None]):
    """``str.translate`` table: punctuation deleted, whitespace to a space, else kept.

    Entries are filled on first sight of a code point, so the table never scans all of
    Unicode and a long transcript costs one C-level dict lookup per character.
    """

    def __missing__(self, code: int) -> int | str | None:
        char = chr(code)
        value: int | str | None = (None if is_punctuation(char)
                                   else " " if char.isspace() else code)
        self[code] = value
        return value


_CLEAN = _CleanTable()


def normalize(text: str) -> str:
    """NFKC, case-fold, delete punctuation, collapse whitespace to single spaces.

    Fullwidth forms become ASCII under NFKC before case folding, so ``ＡＢＣ１`` and
    ``abc1`` compare equal; ``ß`` folds to ``ss``.

    >>> normalize("  Hello,  WORLD!\\tＡＢＣ１２　你好。 ")
    'hello world abc12 你好'
    >>> normalize("Straße all-hands don't")
    'strasse allhands dont'
    >>> normalize("...")
    ''
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(folded.translate(_CLEAN).split())
