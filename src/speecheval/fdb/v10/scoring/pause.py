"""Pause handling: per-sample quantities of the unified metrics.

The window is treated as a non-yielding user turn: from the first annotated pause start
to T, a model word onset takes the floor too early. Each pause owns the time from its
start to the next pause start; the last one owns the time to T (inclusive, since a word
may start exactly at T).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ....core.results import Result
from ....core.timebase import from_us
from ....core.timeline import Spans
from ...common.annotations import Word, word_spans


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

    def report_dict(self) -> dict[str, Any]:
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


def score_pause_samples(samples: Sequence[tuple[tuple[Word, ...], Spans]]
                        ) -> list[PauseSample]:
    """:func:`score_pause_sample` on many ``(words, pauses)`` at once, with the same result
    for each (``tests/fdb10/test_pause_batch.py`` compares them on random samples).

    Why: a sample holds a few words and pauses, so scoring one at a time is mostly the
    fixed cost of a dozen small numpy and timeline calls. Here every sample's times are
    moved onto one axis, sample ``i`` by ``i * stride`` with ``stride`` past the latest
    time of any sample, so no two samples' spans meet; one union, one intersection and one
    search then serve all samples, and sums per sample are taken by sample index.
    """
    if not samples:
        return []
    n = len(samples)
    word_counts = np.array([len(words) for words, _ in samples], dtype=np.int64)
    pause_counts = np.array([len(pauses) for _, pauses in samples], dtype=np.int64)
    word_starts = np.array([w.start_us for words, _ in samples for w in words], np.int64)
    word_ends = np.array([w.end_us for words, _ in samples for w in words], np.int64)
    pause_starts = np.concatenate([pauses.starts for _, pauses in samples])
    pause_ends = np.concatenate([pauses.ends for _, pauses in samples])
    latest = max(int(word_ends.max(initial=0)), int(pause_ends.max(initial=0)))
    stride = latest + 2  # a gap of at least one microsecond between samples
    word_owner = np.repeat(np.arange(n, dtype=np.int64), word_counts)
    pause_owner = np.repeat(np.arange(n, dtype=np.int64), pause_counts)
    shifted_pauses = Spans(pause_starts + pause_owner * stride,
                           pause_ends + pause_owner * stride)
    onsets = word_starts + word_owner * stride

    firsts = np.array([int(pauses.starts[0]) for _, pauses in samples], dtype=np.int64)
    first_of_word = firsts[word_owner]
    late = word_starts >= first_of_word
    # the pause owning a late onset: the last pause, of the same sample, starting at or
    # before it (the shifted starts are sorted across samples, so one search serves all)
    owners = np.searchsorted(shifted_pauses.starts, onsets[late], side="right") - 1
    inside = shifted_pauses.covers(onsets)
    covered = Spans(onsets, word_ends + word_owner * stride).intersection(shifted_pauses)

    def per_sample(owner: np.ndarray, weights: np.ndarray) -> list[int]:
        sums = np.zeros(n, dtype=np.int64)
        np.add.at(sums, owner, weights)
        return [int(x) for x in sums]

    intrusion_words = per_sample(word_owner, late.astype(np.int64))
    inside_onsets = per_sample(word_owner, inside.astype(np.int64))
    pre_pause = per_sample(word_owner, (~late).astype(np.int64))
    carry = per_sample(word_owner, ((word_starts < first_of_word)
                                    & (first_of_word < word_ends)).astype(np.int64))
    intrusion_us = per_sample(covered.starts // stride, covered.ends - covered.starts)
    pause_us = per_sample(pause_owner, pause_ends - pause_starts)
    # the owners come sorted (onsets are, within and across samples): keep the first of
    # each run (np.unique would import numpy.ma)
    distinct_owners = owners[np.append(True, owners[1:] != owners[:-1])] if owners.size \
        else owners
    intruded = per_sample(pause_owner[distinct_owners],
                          np.ones(distinct_owners.size, dtype=np.int64))
    return [PauseSample(
        pause_intrusion=intrusion_words[i] > 0, inside_pause_onset=inside_onsets[i] > 0,
        pre_pause_speech=pre_pause[i] > 0, carry_in=carry[i] > 0,
        any_speech=int(word_counts[i]) > 0, intrusion_words=intrusion_words[i],
        pauses=int(pause_counts[i]), intruded_pauses=intruded[i], pause_us=pause_us[i],
        intrusion_us=intrusion_us[i], first_pause_start_us=int(firsts[i]),
        words=int(word_counts[i])) for i in range(n)]
