"""What every speech detector offers: the speech of a whole track as spans.

A benchmark asks "where is speech in this track?" and should not care which engine
answers. Both engines implement :class:`Vad`:

- :class:`speecheval.vad.streaming.EnergyVad`, the energy detector of the session spec
  (its :class:`~speecheval.vad.streaming.StreamingVad` also follows a live stream);
- :class:`speecheval.vad.silero.SileroVad`, Silero on onnxruntime, which defines speech for
  FDB v1.0 (its :class:`~speecheval.vad.silero_stream.SileroStream` follows a live stream).

Segments are :class:`speecheval.core.timeline.Span` values on the track's timeline. A
segment still running when the track ends has ``open_at_end`` set: its end is where the
audio stopped, not where the speech did.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..core.audio import Audio
from ..core.timeline import Span


@runtime_checkable
class Vad(Protocol):
    """A speech detector over whole tracks."""

    def segments(self, audio: Audio) -> list[Span]:
        """Speech in ``audio``, in time order, as disjoint spans."""
        ...

    def identity(self) -> dict[str, object]:
        """What a run records to trace and reproduce the segments (engine, settings, model)."""
        ...
