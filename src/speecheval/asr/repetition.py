"""The repetition guard: drop the looping tail a small decoder writes over long audio.

Whisper-class decoders can fall into a loop ("thank you thank you thank you ...") over
silence or noise. Every invented word is an intrusion or a response in a turn-taking
metric, so a phrase repeated back to back more than ``max_repeats`` times is taken as a
decoding loop: its first occurrence is kept (it may be real speech) and the repeats are
dropped. Real speech repeats a phrase a few times ("yeah yeah yeah"), which the default
limit of 4 leaves alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .base import TimedWord

_NOT_WORD = re.compile(r"[^\w']+")


@dataclass(frozen=True)
class RepetitionGuard:
    """Phrases of up to ``max_ngram`` words repeated more than ``max_repeats`` times."""

    max_ngram: int = 4
    max_repeats: int = 4

    def identity(self) -> dict[str, object]:
        return {"rule": "a phrase of up to max_ngram words repeated back to back more than "
                        "max_repeats times keeps its first occurrence; the repeats are dropped",
                "max_ngram": self.max_ngram, "max_repeats": self.max_repeats}

    def apply(self, words: list[TimedWord]) -> list[TimedWord]:
        """``words`` without the repeats of looping phrases (case and punctuation ignored).

        >>> w = [TimedWord(t, float(i), float(i) + 0.5)
        ...      for i, t in enumerate(["so", "thank", "you.", "Thank", "you"] * 1 +
        ...                            ["thank", "you"] * 4)]
        >>> [x.text for x in RepetitionGuard().apply(w)]
        ['so', 'thank', 'you.']
        >>> [x.text for x in RepetitionGuard().apply(w[:7])]
        ['so', 'thank', 'you.', 'Thank', 'you', 'thank', 'you']
        """
        keys = [_NOT_WORD.sub("", w.text.lower()) for w in words]
        kept: list[TimedWord] = []
        i = 0
        while i < len(words):
            skip_to = i
            for n in range(1, self.max_ngram + 1):
                phrase = keys[i:i + n]
                if len(phrase) < n:
                    break
                repeats = 1
                while keys[i + repeats * n:i + (repeats + 1) * n] == phrase:
                    repeats += 1
                if repeats > self.max_repeats:
                    skip_to = max(skip_to, i + repeats * n)
            kept.extend(words[i:i + 1] if skip_to == i else words[i:i + _first_len(
                keys, i, skip_to)])
            i = skip_to if skip_to > i else i + 1
        return kept


def _first_len(keys: list[str], start: int, stop: int) -> int:
    """Length of the phrase whose repeats fill ``keys[start:stop]``: the shortest period."""
    span = keys[start:stop]
    for n in range(1, len(span) + 1):
        if len(span) % n == 0 and span == span[:n] * (len(span) // n):
            return n
    return len(span)
