"""Silero speech boundaries of a live track, each reported once it is certain.

A live session decides when an agent-anchored turn starts (``after:
agent_speech_start``) while the agent audio plays; the metrics afterwards find the
agent's speech in the whole recorded track. When a scenario declares ``engine: silero``
for the agent, both must see the same speech. :class:`SileroStream` therefore runs the
very computation of :meth:`SileroVad.segments` on the audio as it arrives: the same
framing and model (scored a few windows at a time, which gives the same numbers as
scoring the file at once) and the same state machine
(:class:`~speecheval.vad.silero_segments.SegmentTracker`, fed window by window).

An onset is reported as soon as no later audio can remove its segment: Silero keeps a
segment only if it lasts longer than ``min_speech_ms``, so the onset is certain once the
speech since it (up to its pending silence, if any) is that long. An offset is reported
when the state machine closes the segment. Every boundary reported is a boundary of the
whole track's segments, at the same time in seconds.

Limits, checked when the stream is made: the track's rate must be one Silero takes
(8 or 16 kHz) or a multiple of 16 kHz (decimated, as for whole files); other rates are
resampled over the whole file, which a stream cannot reproduce. Settings with padding
or a maximum segment length move boundaries after the fact, so they are refused too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from ..core.errors import InputError
from .silero import SileroSettings
from .silero_model import ModelState, SileroOnnx, locate_model_files
from .silero_segments import SegmentTracker
from .silero_spec import FRAMING, MODEL_RATE


@dataclass(frozen=True)
class SileroBoundary:
    """A speech onset or offset at ``time_s`` on the track's timeline."""

    kind: Literal["onset", "offset"]
    time_s: float


@lru_cache(maxsize=1)
def _shared_model() -> SileroOnnx:
    """One model per process: it keeps no state between calls (the stream carries it)."""
    return SileroOnnx(locate_model_files()).loaded()


def live_rate_problem(rate: int) -> str | None:
    """Why a track at ``rate`` Hz cannot be followed live (None: it can)."""
    if rate in FRAMING or rate % MODEL_RATE == 0:
        return None
    return (f"live Silero detection needs a sample rate of 8000, 16000 or a multiple of "
            f"16000 Hz, not {rate} Hz (other rates are resampled over the whole track)")


class SileroStream:
    """Feed a track with :meth:`push`; get the boundaries that became certain."""

    def __init__(self, rate: int, settings: SileroSettings | None = None) -> None:
        settings = settings or SileroSettings()
        problem = live_rate_problem(rate)
        if problem is not None:
            raise InputError(problem)
        if settings.speech_pad_ms or settings.max_speech_s is not None:
            raise InputError("live Silero detection needs speech_pad_ms 0 and no "
                             "max_speech_s: both move boundaries after the fact")
        self.rate = rate
        self.model_rate = rate if rate in FRAMING else MODEL_RATE
        self.step = 1 if rate in FRAMING else rate // MODEL_RATE
        self.window, context = FRAMING[self.model_rate]
        self.tracker = SegmentTracker(settings.rule(self.model_rate))
        self._model = _shared_model()
        self._state: ModelState | None = None
        self._context = np.zeros(context, dtype=np.float32)
        self._pending = np.zeros(0, dtype=np.float32)
        self._consumed = 0  # input samples pushed so far (the decimation phase)
        self._reported: int | None = None  # start of the open segment, once reported

    @property
    def speaking(self) -> bool:
        """An onset was reported and its offset not yet."""
        return self._reported is not None

    def push(self, samples: NDArray[np.int16]) -> list[SileroBoundary]:
        """Consume the next int16 samples of the track; return the boundaries now certain."""
        floats = samples.astype(np.float32) / 32768.0  # as the metrics read the track
        first = (-self._consumed) % self.step  # keep every step-th sample of the track
        self._consumed += samples.size
        buffered = np.concatenate([self._pending, floats[first::self.step]])
        n_windows = buffered.size // self.window
        self._pending = buffered[n_windows * self.window:]
        if n_windows == 0:
            return []
        windows = buffered[: n_windows * self.window].reshape(n_windows, self.window)
        contexts = np.concatenate([self._context[None, :],
                                   windows[:-1, -self._context.size:]])
        self._context = windows[-1, -self._context.size:].copy()
        rows = np.ascontiguousarray(np.concatenate([contexts, windows], axis=1))
        probs, self._state = self._model.block_probabilities(rows, self.model_rate,
                                                             self._state)
        found: list[SileroBoundary] = []
        for prob in probs.tolist():
            found += self._advance(prob)
        return found

    def _advance(self, prob: float) -> list[SileroBoundary]:
        tracker = self.tracker
        closed = len(tracker.segments)
        tracker.step(prob)
        found = []
        for start, end in tracker.segments[closed:]:
            if self._reported != start:
                found.append(self._boundary("onset", start))
            found.append(self._boundary("offset", end))
            self._reported = None
        if tracker.start is not None and self._reported is None:
            # the open segment ends at its pending silence, or at the next window or later
            earliest_end = tracker.temp_end or tracker.position
            if earliest_end - tracker.start > tracker.rule.min_speech:
                self._reported = tracker.start
                found.append(self._boundary("onset", tracker.start))
        return found

    def _boundary(self, kind: Literal["onset", "offset"], model_sample: int) -> SileroBoundary:
        """Model-rate sample index to seconds, as ``SileroVad`` maps a file's segments."""
        return SileroBoundary(kind, model_sample * self.step / self.rate)
