"""What every recogniser offers: the timed words of a 16 kHz mono track.

Benchmarks score word onsets, so a recogniser returns words with start and end times on
the track's own timeline, and an identity that a run records so the transcript can be
traced to the exact model files and decoding settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..core.audio import Samples

SAMPLE_RATE = 16_000
"""The rate every recogniser takes; callers resample with ``core.audio.resample``."""


@dataclass(frozen=True)
class TimedWord:
    """One recognised word, its times in seconds on the transcribed track."""

    text: str
    start_s: float
    end_s: float


class RecognitionFailed(Exception):
    """The recogniser gave no words for this track, for a reason that is the backend's fault
    (a server's error reply, a truncated answer); the caller records it and goes on."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@runtime_checkable
class Recogniser(Protocol):
    """A speech recogniser over whole 16 kHz mono tracks."""

    def words(self, samples: Samples) -> list[TimedWord]:
        """The words of ``samples`` (float32 at :data:`SAMPLE_RATE`), in time order.

        Raises :class:`RecognitionFailed` when the backend fails on this track only."""
        ...

    def identity(self) -> dict[str, object]:
        """Packages, model file hashes and every decoding setting of this recogniser."""
        ...
