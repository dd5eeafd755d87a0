"""Silero's rule for turning per-window speech probabilities into speech segments.

This is the state machine of ``silero_vad.get_speech_timestamps`` (6.2.3), rewritten
without torch so the scorer can run it on onnxruntime output. It is kept quirk for quirk,
because the FDB v1.0 spec defines speech as what that function returns:

- a window at or above ``threshold`` starts speech; while in speech, a window below
  ``neg_threshold`` (default ``threshold - 0.15``, at least 0.01) starts a tentative end,
  which becomes final once the silence lasts ``min_silence`` samples, measured from the
  start of the first silent window to the start of the current one;
- a segment is kept only if it is *longer* than ``min_speech`` samples; speech still open
  at the end of the file ends at the file's last sample;
- the optional maximum segment length cuts at the longest (or, by choice, the last)
  silence seen inside the segment;
- padding widens segments by ``speech_pad`` samples, splitting gaps shorter than twice
  the padding between neighbours.

Positions are sample indices at the model rate (8 or 16 kHz): window ``i`` starts at
``i * window``. Thresholds compare Python floats, as Silero does after ``.item()``.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class SegmentRule:
    """The state machine's parameters in samples at the model rate (floats, as in Silero)."""

    window: int
    threshold: float
    neg_threshold: float
    min_speech: float
    min_silence: float
    max_speech: float
    min_silence_at_max_speech: float
    use_max_possible_silence: bool
    speech_pad: float


def speech_segments(probs: Sequence[float] | NDArray[np.floating], rule: SegmentRule,
                    n_samples: int) -> list[tuple[int, int]]:
    """Speech segments as ``(start, end)`` sample indices, padded as the rule says.

    ``n_samples`` is the length of the audio the probabilities came from.

    >>> rule = SegmentRule(window=512, threshold=0.5, neg_threshold=0.35, min_speech=4000.0,
    ...                    min_silence=1600.0, max_speech=float("inf"),
    ...                    min_silence_at_max_speech=1568.0, use_max_possible_silence=True,
    ...                    speech_pad=0.0)
    >>> speech_segments([0.0] + [0.9] * 10 + [0.0] * 5, rule, 16 * 512)
    [(512, 5632)]
    """
    return _pad(_raw_segments(probs, rule, n_samples), rule.speech_pad, n_samples)


def _raw_segments(probs: Sequence[float] | NDArray[np.floating], rule: SegmentRule,
                  n_samples: int) -> list[list[int]]:
    """Unpadded segments of a whole file.

    With no maximum segment length, most windows change nothing but the position: out
    of speech, every window below ``threshold``; in speech with no silence begun, every
    window at or above ``neg_threshold``; in speech after a silent window, every window
    in ``[neg_threshold, threshold)``. Only the others are stepped, each at its own
    position (the tracker's state decides which kind comes next, found by bisection),
    which gives the same segments as stepping all of them: 1.5 % of the windows of the
    full-size benchmark tree's 200 outputs are stepped (the rule's time there fell from
    63 to 10 ms). With a maximum length every window in speech counts towards it, so
    all are stepped.
    """
    values = np.asarray(probs, dtype=np.float64)  # float32 -> float64 is exact
    tracker = SegmentTracker(rule)
    if not math.isinf(rule.max_speech):
        for prob in values.tolist():
            tracker.step(prob)
        return tracker.finish(n_samples)
    is_speech = values >= rule.threshold
    is_silent = values < rule.neg_threshold
    speech = np.flatnonzero(is_speech).tolist()
    silent = np.flatnonzero(is_silent).tolist()
    either = np.flatnonzero(is_speech | is_silent).tolist()
    index = 0
    while True:
        eventful = (speech if not tracker.triggered
                    else silent if not tracker.temp_end else either)
        k = bisect_left(eventful, index)
        if k == len(eventful):
            break
        index = eventful[k]
        tracker.position = index * rule.window
        tracker.step(float(values[index]))
        index += 1
    return tracker.finish(n_samples)


class SegmentTracker:
    """Silero's state machine fed one window probability at a time; mirrors the main loop
    of ``get_speech_timestamps``, so a live stream and a whole file give the same segments.

    ``segments`` holds the unpadded segments closed so far; ``start`` is the start of the
    open segment (Silero's ``current_speech``), ``temp_end`` the start of the run of
    silence inside it (0: none), ``position`` the start of the next window.
    """

    def __init__(self, rule: SegmentRule) -> None:
        self.rule = rule
        self.segments: list[list[int]] = []
        self.start: int | None = None
        self.triggered = False
        self.temp_end = 0
        self.position = 0
        self._prev_end = self._next_start = 0  # last usable cut for the legacy max rule
        self._possible_ends: list[tuple[int, int]] = []  # (silence start, silence length)

    def step(self, prob: float) -> None:
        """Take the probability of the next window."""
        rule = self.rule
        position = self.position
        self.position += rule.window
        speech = prob >= rule.threshold

        if speech and self.temp_end:
            silence = position - self.temp_end
            if silence > rule.min_silence_at_max_speech:
                self._possible_ends.append((self.temp_end, silence))
            self.temp_end = 0
            if self._next_start < self._prev_end:
                self._next_start = position

        if speech and not self.triggered:
            self.triggered = True
            self.start = position
            return

        if self.triggered and self.start is not None and position - self.start > rule.max_speech:
            if rule.use_max_possible_silence and self._possible_ends:
                cut, length = max(self._possible_ends, key=lambda end: end[1])
                self.segments.append([self.start, cut])
                # Speech reopens where that silence ended. Silero guards this with
                # ``next_start < prev_end + cur_sample``, which always holds: the silence
                # ended at or before the current window and the cut is a positive index.
                self.start = cut + length
                self._prev_end = self._next_start = self.temp_end = 0
                self._possible_ends = []
            elif self._prev_end:
                self.segments.append([self.start, self._prev_end])
                if self._next_start < self._prev_end:
                    self.start = None
                    self.triggered = False
                else:
                    self.start = self._next_start
                self._prev_end = self._next_start = self.temp_end = 0
                self._possible_ends = []
            else:
                self.segments.append([self.start, position])
                self.start = None
                self._prev_end = self._next_start = self.temp_end = 0
                self.triggered = False
                self._possible_ends = []
                return

        if prob < rule.neg_threshold and self.triggered:
            if not self.temp_end:
                self.temp_end = position
            silence_now = position - self.temp_end
            if (not rule.use_max_possible_silence
                    and silence_now > rule.min_silence_at_max_speech):
                self._prev_end = self.temp_end
            if silence_now < rule.min_silence:
                return
            if self.start is not None and self.temp_end - self.start > rule.min_speech:
                self.segments.append([self.start, self.temp_end])
            self.start = None
            self._prev_end = self._next_start = self.temp_end = 0
            self.triggered = False
            self._possible_ends = []

    def finish(self, n_samples: int) -> list[list[int]]:
        """The segments of the whole file of ``n_samples``: speech still open ends there."""
        if self.start is not None and n_samples - self.start > self.rule.min_speech:
            self.segments.append([self.start, n_samples])
        return self.segments


def _pad(segments: list[list[int]], pad: float, n_samples: int) -> list[tuple[int, int]]:
    """Widen segments by ``pad`` samples; a gap under ``2 * pad`` is split between its sides."""
    for index, segment in enumerate(segments):
        if index == 0:
            segment[0] = int(max(0, segment[0] - pad))
        if index == len(segments) - 1:
            segment[1] = int(min(n_samples, segment[1] + pad))
            continue
        following = segments[index + 1]
        gap = following[0] - segment[1]
        if gap < 2 * pad:
            segment[1] += gap // 2
            following[0] = int(max(0, following[0] - gap // 2))
        else:
            segment[1] = int(min(n_samples, segment[1] + pad))
            following[0] = int(max(0, following[0] - pad))
    return [(start, end) for start, end in segments]
