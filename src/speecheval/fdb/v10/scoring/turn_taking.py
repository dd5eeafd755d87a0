"""Smooth turn-taking: the outcome of one sample against E, the end of the user's turn.

An early start never counts as a response, so talking through the end of the user's turn
cannot buy a short latency.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ....core.results import Result
from ....core.timebase import from_us
from ...common.annotations import Word

EARLY_START = "early_start"
RESPONSE = "response"
NO_RESPONSE = "no_response"


@dataclass(frozen=True)
class TurnTakingSample(Result, kind="fdb10.turn_taking_sample"):
    """Outcome and latency (only for a response) of one sample, in microseconds."""

    outcome: str
    turn_end_us: int
    first_word_us: int | None
    latency_us: int | None
    observable_us: int

    def report_dict(self) -> dict[str, Any]:
        """The task's part of the sample's ``unified-samples.jsonl`` row (seconds)."""
        return {
            "outcome": self.outcome,
            "E": from_us(self.turn_end_us),
            "first_word_s": optional_seconds(self.first_word_us),
            "latency_s": optional_seconds(self.latency_us),
            "observable_s": from_us(self.observable_us),
        }


def optional_seconds(value_us: int | None) -> float | None:
    """Seconds of a time that may not exist (no word, no stop)."""
    return None if value_us is None else from_us(value_us)


def score_turn_taking_sample(words: tuple[Word, ...], turn_end_us: int, duration_us: int
                             ) -> TurnTakingSample:
    """``early_start`` if a word starts before E, else ``response`` if one starts at or
    after E (latency = first start - E), else ``no_response``; the output is observed
    for T - E after E.

    >>> score_turn_taking_sample((Word("hi", 900, 1000),), 1000, 5000).outcome
    'early_start'
    >>> score_turn_taking_sample((Word("hi", 1000, 1200),), 1000, 5000).latency_us
    0
    """
    observable = duration_us - turn_end_us
    if not words:
        return TurnTakingSample(NO_RESPONSE, turn_end_us, None, None, observable)
    first = min(word.start_us for word in words)
    if first < turn_end_us:
        return TurnTakingSample(EARLY_START, turn_end_us, first, None, observable)
    return TurnTakingSample(RESPONSE, turn_end_us, first, first - turn_end_us, observable)
