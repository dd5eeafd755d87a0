"""Pause handling: per-sample quantities of the unified metrics.

The window is treated as a non-yielding user turn: from the first annotated pause start
to T, a model word onset takes the floor too early. Each pause owns the time from its
start to the next pause start; the last one owns the time to T (inclusive, since a word
may start exactly at T).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .annotations import Interval, Word


@dataclass(frozen=True)
class PauseSample:
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


def owned_intervals(pauses: tuple[Interval, ...], duration_us: int) -> list[tuple[int, int]]:
    """Owned time of each pause as ``(start, end)``; all half-open except the last, closed.

    >>> owned_intervals((Interval(2, 3), Interval(5, 6)), 10)
    [(2, 5), (5, 10)]
    """
    starts = [pause.start_us for pause in pauses]
    return list(zip(starts, starts[1:] + [duration_us], strict=True))


def _covered_us(words: tuple[Word, ...], pauses: tuple[Interval, ...]) -> int:
    """Pause microseconds covered by the union of word spans (overlapping words count once)."""
    spans = sorted((w.start_us, w.end_us) for w in words if w.end_us > w.start_us)
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    covered = 0
    for start, end in merged:
        for pause in pauses:
            covered += max(0, min(end, pause.end_us) - max(start, pause.start_us))
    return covered


def score_pause_sample(words: tuple[Word, ...], pauses: tuple[Interval, ...],
                       duration_us: int) -> PauseSample:
    """Flags and pooled quantities of one sample; ``pauses`` is non-empty and sorted."""
    first = pauses[0].start_us
    onsets = np.array([w.start_us for w in words], dtype=np.int64)
    owned = owned_intervals(pauses, duration_us)
    last = len(owned) - 1
    intruded = sum(
        1 for i, (start, end) in enumerate(owned)
        if np.any((onsets >= start) & ((onsets <= end) if i == last else (onsets < end)))
    )
    inside = any(np.any((onsets >= p.start_us) & (onsets < p.end_us)) for p in pauses)
    return PauseSample(
        pause_intrusion=bool(np.any(onsets >= first)),
        inside_pause_onset=bool(inside),
        pre_pause_speech=bool(np.any(onsets < first)),
        carry_in=any(w.start_us < first < w.end_us for w in words),
        any_speech=len(words) > 0,
        intrusion_words=int(np.count_nonzero(onsets >= first)),
        pauses=len(pauses),
        intruded_pauses=intruded,
        pause_us=sum(p.length_us for p in pauses),
        intrusion_us=_covered_us(words, pauses),
        first_pause_start_us=first,
    )
