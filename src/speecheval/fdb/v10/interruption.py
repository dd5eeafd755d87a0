"""User interruption: the outcome of one sample from Silero segments and the transcript.

The transcript holds only words from R on (``reference-asr`` cuts the audio at R), so
whether the model was speaking at the onset S and still at the end R comes from speech
segments of the whole ``output.wav``. Segments are half-open ``[start, end)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .annotations import Interval, Word

NOT_EXERCISED = "not_exercised"
SPEAKING_AT_END = "speaking_at_end"
RESPONSE = "response"
NO_RESPONSE = "no_response"


@dataclass(frozen=True)
class InterruptionSample:
    """Per-sample quantities of the interruption metrics (microseconds)."""

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

    @property
    def exercised(self) -> bool:
        return self.outcome != NOT_EXERCISED


def score_interruption_sample(segments: tuple[Interval, ...], words: tuple[Word, ...],
                              span: Interval, duration_us: int) -> InterruptionSample:
    """Decide the outcome in the spec's order and measure stop, overlap and restarts.

    ``stop_us`` is the time from S to the end of the segment covering S; a segment that
    runs to T has no observed stop (``stop_us`` None, ``stop_observed`` False).

    >>> seg = (Interval(0, 5_000_000),)
    >>> score_interruption_sample(seg, (Word("ok", 7_000_000, 7_200_000),),
    ...                           Interval(4_000_000, 6_000_000), 10_000_000).latency_us
    1000000
    """
    onset, end = span.start_us, span.end_us
    covering = [s for s in segments if s.start_us <= onset < s.end_us]
    at_onset = bool(covering)
    at_end = any(s.start_us < end < s.end_us for s in segments)
    stop_us: int | None = None
    stop_observed: bool | None = None
    if covering:
        segment_end = covering[0].end_us
        stop_observed = segment_end < duration_us
        stop_us = segment_end - onset if stop_observed else None
    inside = sum(max(0, min(s.end_us, end) - max(s.start_us, onset)) for s in segments)
    restarts = sum(1 for s in segments if onset < s.start_us < end)
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
        speech_before_onset=any(s.start_us < onset for s in segments),
        stop_us=stop_us, stop_observed=stop_observed, speech_in_interruption_us=inside,
        restarts=restarts, first_word_us=first_word, latency_us=latency)
