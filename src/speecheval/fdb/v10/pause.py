"""Pause handling: per-sample quantities of the unified metrics.

The window is treated as a non-yielding user turn: from the first annotated pause start
to T, a model word onset takes the floor too early. Each pause owns the time from its
start to the next pause start; the last one owns the time to T (inclusive, since a word
may start exactly at T).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.results import Result
from ...core.timebase import from_us
from ...core.timeline import Spans
from .annotations import Word, word_spans


@dataclass(frozen=True)
class PauseSample(Result, kind="fdb10.pause_sample"):
    """What one pause-handling sample contributes (times in microseconds)."""

    pause_intrusion: bool
    inside_pause_onset: bool
    pre_pause_speech: bool
    carry_in: bool
    any_speech: bool
    intrusion_words: int
    pauses: int
    intruded_pauses: int
    pause_us: int
    intrusion_us: int
    first_pause_start_us: int
    words: int

    def row(self) -> dict[str, Any]:
        """The task's part of the sample's ``unified-samples.jsonl`` row (seconds)."""
        return {
            "pause_intrusion": self.pause_intrusion,
            "inside_pause_onset": self.inside_pause_onset,
            "pre_pause_speech": self.pre_pause_speech,
            "carry_in": self.carry_in,
            "any_speech": self.any_speech,
            "intrusion_words": self.intrusion_words,
            "pauses": self.pauses,
            "intruded_pauses": self.intruded_pauses,
            "pause_s": from_us(self.pause_us),
            "intrusion_s": from_us(self.intrusion_us),
            "first_pause_start_s": from_us(self.first_pause_start_us),
            "words": self.words,
        }


def owned_intervals(pauses: Spans, duration_us: int) -> Spans:
    """Owned time of each pause; all half-open except the last, which is closed at T.

    >>> owned_intervals(Spans([2, 5], [3, 6]), 10).to_tuples()
    [(2, 5), (5, 10)]
    """
    return Spans(pauses.starts, np.append(pauses.starts[1:], duration_us))


def score_pause_sample(words: tuple[Word, ...], pauses: Spans) -> PauseSample:
    """Flags and pooled quantities of one sample; ``pauses`` is non-empty and sorted.

    An onset at or after the first pause start intrudes on the pause that owns it: the
    last pause starting at or before the onset (an onset at T belongs to the last pause).
    """
    first = int(pauses.starts[0])
    onsets = np.array([w.start_us for w in words], dtype=np.int64)
    late = onsets[onsets >= first]
    owners = np.searchsorted(pauses.starts, late, side="right") - 1
    return PauseSample(
        pause_intrusion=bool(late.size),
        inside_pause_onset=bool(np.any(pauses.covers(onsets))),
        pre_pause_speech=bool(np.any(onsets < first)),
        carry_in=any(w.start_us < first < w.end_us for w in words),
        any_speech=len(words) > 0,
        intrusion_words=int(late.size),
        pauses=len(pauses),
        intruded_pauses=len(set(owners.tolist())),  # np.unique would import numpy.ma
        pause_us=int(pauses.durations_us.sum()),
        intrusion_us=word_spans(words).overlap_us(pauses),
        first_pause_start_us=first,
        words=len(words),
    )
