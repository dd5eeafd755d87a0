"""User interruption: the outcome of one sample from Silero segments and the transcript.

The transcript holds only words from R on (``reference-asr`` cuts the audio at R), so
whether the model was speaking at the onset S and still at the end R comes from speech
segments of the whole ``output.wav``. Segments are half-open ``[start, end)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ....core.results import Result
from ....core.timebase import from_us
from ....core.timeline import Span, Spans
from ...common.annotations import Word
from .turn_taking import optional_seconds

NOT_EXERCISED = "not_exercised"
SPEAKING_AT_END = "speaking_at_end"
RESPONSE = "response"
NO_RESPONSE = "no_response"


@dataclass(frozen=True)
class InterruptionSample(Result, kind="fdb10.interruption_sample"):
    """Per-sample quantities of the interruption metrics (microseconds), with the speech
    segments they were decided from."""

    outcome: str
    onset_us: int
    end_us: int
    speech_at_onset: bool
    speech_at_end: bool
    speech_before_onset: bool
    stop_us: int | None
    stop_observed: bool | None
    speech_in_interruption_us: int
    restarts: int
    first_word_us: int | None
    latency_us: int | None
    observable_us: int
    segments: tuple[Span, ...]

    @property
    def exercised(self) -> bool:
        return self.outcome != NOT_EXERCISED

    def report_dict(self) -> dict[str, Any]:
        """The task's part of the sample's ``unified-samples.jsonl`` row (seconds)."""
        return {
            "outcome": self.outcome,
            "S": from_us(self.onset_us),
            "R": from_us(self.end_us),
            "speech_at_onset": self.speech_at_onset,
            "speech_at_end": self.speech_at_end,
            "speech_before_onset": self.speech_before_onset,
            "stop_s": optional_seconds(self.stop_us),
            "stop_observed": self.stop_observed,
            "speech_in_interruption_s": from_us(self.speech_in_interruption_us),
            "restarts": self.restarts,
            "first_word_s": optional_seconds(self.first_word_us),
            "latency_s": optional_seconds(self.latency_us),
            "segments": [[from_us(s.start_us), from_us(s.end_us)] for s in self.segments],
        }


def score_interruption_sample(segments: Spans, words: tuple[Word, ...],
                              span: Span, duration_us: int) -> InterruptionSample:
    """Decide the outcome in the spec's order and measure stop, overlap and restarts.

    ``stop_us`` is the time from S to the end of the segment covering S; a segment that
    runs to T has no observed stop (``stop_us`` None, ``stop_observed`` False). The output
    is observed for T - R after R (``observable_us``).

    >>> seg = Spans([0], [5_000_000])
    >>> score_interruption_sample(seg, (Word("ok", 7_000_000, 7_200_000),),
    ...                           Span(4_000_000, 6_000_000), 10_000_000).latency_us
    1000000
    """
    onset, end = span.start_us, span.end_us
    starts, ends = segments.starts, segments.ends
    covering = np.flatnonzero((starts <= onset) & (onset < ends))
    at_onset = bool(covering.size)
    at_end = bool(np.any((starts < end) & (end < ends)))
    stop_us: int | None = None
    stop_observed: bool | None = None
    if at_onset:
        segment_end = int(ends[covering[0]])
        stop_observed = segment_end < duration_us
        stop_us = segment_end - onset if stop_observed else None
    inside = segments.clipped(span).covered_us()
    restarts = int(np.count_nonzero((onset < starts) & (starts < end)))
    first_word = min((w.start_us for w in words if w.start_us >= end), default=None)
    latency: int | None = None
    if not at_onset:
        outcome = NOT_EXERCISED
    elif at_end:
        outcome = SPEAKING_AT_END
    elif first_word is not None:
        outcome = RESPONSE
        latency = first_word - end
    else:
        outcome = NO_RESPONSE
    return InterruptionSample(
        outcome=outcome, onset_us=onset, end_us=end, speech_at_onset=at_onset,
        speech_at_end=at_end,
        speech_before_onset=bool(np.any(starts < onset)),
        stop_us=stop_us, stop_observed=stop_observed, speech_in_interruption_us=inside,
        restarts=restarts, first_word_us=first_word, latency_us=latency,
        observable_us=duration_us - end, segments=tuple(segments))
