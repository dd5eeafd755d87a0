"""Seconds views of a record whose time is a :class:`~speecheval.core.timeline.Span`."""

from __future__ import annotations

from ...core.timeline import Span


class SpanInSeconds:
    """``start``, ``end`` and ``duration`` in seconds, read from the record's ``span``
    (integer microseconds): the formats write and compare seconds, the scorers use µs."""

    span: Span

    @property
    def start(self) -> float:
        """Start in seconds."""
        return self.span.start_s

    @property
    def end(self) -> float:
        """End in seconds."""
        return self.span.end_s

    @property
    def duration(self) -> float:
        """Duration in seconds."""
        return self.span.duration_s
