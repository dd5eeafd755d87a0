"""The cascade agent's reply policy: a templated sentence from the words it recognised.

Deterministic by construction (no sampling, no model): the same recognised words give the
same reply, so the same input audio gives the same reply text. The reply quotes the last
``max_words`` words, which keeps it short enough for a benchmark window and lets a test
check that the reply was derived from what the user said.
"""

from __future__ import annotations

import re

NOTHING_HEARD = "Sorry, I did not catch that."


def words_of(text: str) -> list[str]:
    """Lower-case words of a transcript, punctuation dropped.

    >>> words_of(" One good choice, is a classic-novel!")
    ['one', 'good', 'choice', 'is', 'a', 'classic', 'novel']
    """
    return re.findall(r"[a-z0-9']+", text.lower())


def reply_text(heard: str, max_words: int) -> str:
    """The reply to a user turn whose transcript is ``heard``.

    >>> reply_text("There are many ways to learn a new language.", 4)
    'You said learn a new language.'
    >>> reply_text("", 4)
    'Sorry, I did not catch that.'
    """
    words = words_of(heard)
    if not words:
        return NOTHING_HEARD
    return "You said " + " ".join(words[-max_words:]) + "."
