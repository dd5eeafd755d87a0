"""Word error rate of the agent's user transcript against a turn's expected text.

Both strings are Unicode-normalized (NFKC), lowercased and stripped of punctuation other
than apostrophes, then compared word by word with a Levenshtein alignment. This is the
session spec's definition; the richer text normalisation of the transcripts benchmark is
a different metric.

An apostrophe is kept only inside a word ("it's", "o'clock"): at the start or end of a
word it is a quotation mark or a plural possessive ("'yes'", "dogs'"), which transcribers
write or leave out at will, and voicebench 0.2.0 strips it there too.
"""

from __future__ import annotations

import re
import unicodedata

_NOT_WORD = re.compile(r"[^\w\s']")


def normalize_words(text: str) -> list[str]:
    """Words of ``text`` after normalisation.

    >>> normalize_words("It's  NEXT Tuesday, okay?!")
    ["it's", 'next', 'tuesday', 'okay']
    >>> normalize_words("say 'yes' to the dogs' bowl ''")
    ['say', 'yes', 'to', 'the', 'dogs', 'bowl']
    """
    cleaned = _NOT_WORD.sub(" ", unicodedata.normalize("NFKC", text).lower())
    return [word for word in (raw.strip("'") for raw in cleaned.split()) if word]


def word_edits(reference: list[str], hypothesis: list[str]) -> int:
    """Minimum substitutions + deletions + insertions turning reference into hypothesis.

    >>> word_edits(["a", "b", "c"], ["a", "x", "c", "d"])  # 1 substitution + 1 insertion
    2
    """
    previous = list(range(len(hypothesis) + 1))
    for i, ref_word in enumerate(reference, start=1):
        current = [i]
        for j, hyp_word in enumerate(hypothesis, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (ref_word != hyp_word)))
        previous = current
    return previous[-1]


def wer(reference: str, hypothesis: str) -> float:
    """Edits / reference words; an empty reference gives 0.0 (empty hypothesis) or 1.0.

    >>> wer("Yes, that works.", "yes that work")  # 1 substitution in 3 words
    0.3333333333333333
    >>> wer("one", "one two three")  # 2 insertions in 1 word: WER can exceed 1
    2.0
    """
    ref = normalize_words(reference)
    hyp = normalize_words(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    return word_edits(ref, hyp) / len(ref)
