"""Smooth turn-taking: the outcome of one sample against E, the end of the user's turn.

An early start never counts as a response, so talking through the end of the user's turn
cannot buy a short latency.
"""

from __future__ import annotations

from dataclasses import dataclass

from .annotations import Word

EARLY_START = "early_start"
RESPONSE = "response"
NO_RESPONSE = "no_response"


@dataclass(frozen=True)
class TurnTakingSample:
    """Outcome and latency (only for a response) of one sample, in microseconds."""

    outcome: str
    turn_end_us: int
    first_word_us: int | None
    latency_us: int | None


def score_turn_taking_sample(words: tuple[Word, ...], turn_end_us: int) -> TurnTakingSample:
    """``early_start`` if a word starts before E, else ``response`` if one starts at or
    after E (latency = first start - E), else ``no_response``.

    >>> score_turn_taking_sample((Word("hi", 900, 1000),), 1000).outcome
    'early_start'
    >>> score_turn_taking_sample((Word("hi", 1000, 1200),), 1000).latency_us
    0
    """
    if not words:
        return TurnTakingSample(NO_RESPONSE, turn_end_us, None, None)
    first = min(word.start_us for word in words)
    if first < turn_end_us:
        return TurnTakingSample(EARLY_START, turn_end_us, first, None)
    return TurnTakingSample(RESPONSE, turn_end_us, first, first - turn_end_us)
