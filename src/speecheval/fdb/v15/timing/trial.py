"""Event-anchored timing of one v1.5 trial: how fast the system stops and re-enters.

Anchored on the overlap window ``[a, b)`` of metadata.json and the speech segments of the
system's output (Silero, half-open spans, ``open_at_end`` on a segment still running when
the output ends at ``T``):

* **stop latency** = ``c.end - a`` for the segment ``c`` that covers the onset
  (``c.start <= a < c.end``). Its status is ``stopped``, or ``not_speaking_at_onset``
  when no segment covers ``a`` (a segment ending exactly at ``a`` does not), or
  ``right_censored`` when ``c`` is still running at ``T`` or the output ends by ``a`` (the
  observation ends first; the latency is at least ``T - a``).
* **response latency** = ``n.start - b`` for the first segment ``n`` with
  ``n.start >= b`` (one starting exactly at ``b`` has latency 0). Its status is
  ``responded``; ``speaking_through_end`` when a segment runs across the overlap end
  (``start < b < end``: the system never yielded, so there is no re-entry to time);
  ``no_response`` when no segment starts in ``[b, T)``; ``right_censored`` when the
  output ends by ``b``.

Before either latency is measured, pauses inside the system's speech of at most
:data:`BRIDGE_GAP_US` (0.5 s, the model merge gap of the official ``get_timing.py``) are
bridged (:func:`bridge_pauses`): a pause between two sentences is not a stop, and a
segment starting again within 0.5 s of the previous one is not a re-entry.
:func:`event_timing` returns this headline and, as a diagnostic, the same statuses on
the unbridged segments.

Nothing is dropped silently: every trial has both statuses. For quantiles a censored
stop and a missing response are ``+inf`` (they did not happen within the observation,
:mod:`speecheval.core.stats`' rule); trials not speaking at the onset have no stop value
and trials speaking through the end or censored before ``b`` have no response value.

The official whole-file intervals are a different computation, kept as a reference
column in :mod:`.official`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ....core.results import Result
from ....core.timeline import Span

BRIDGE_GAP_US = 500_000
"""Pauses in the system's speech up to this long are bridged (get_timing.py's 0.5 s)."""
STOP_STATUSES = ("stopped", "not_speaking_at_onset", "right_censored")
RESPONSE_STATUSES = ("responded", "speaking_through_end", "no_response", "right_censored")


@dataclass(frozen=True)
class TrialTiming(Result, kind="fdb15.trial_timing"):
    """Stop and response of one trial, in microseconds, each with its status."""

    stop_status: str
    stop_latency_us: int | None
    response_status: str
    response_latency_us: int | None

    _derived: ClassVar[tuple[str, ...]] = ("stop_latency_s", "response_latency_s")

    def __post_init__(self) -> None:
        if self.stop_status not in STOP_STATUSES:
            raise ValueError(f"unknown stop status {self.stop_status!r}")
        if self.response_status not in RESPONSE_STATUSES:
            raise ValueError(f"unknown response status {self.response_status!r}")
        if (self.stop_latency_us is not None) != (self.stop_status == "stopped"):
            raise ValueError("a stop latency is given exactly when the status is 'stopped'")
        if (self.response_latency_us is not None) != (self.response_status == "responded"):
            raise ValueError("a response latency is given exactly when the status is "
                             "'responded'")
        for value in (self.stop_latency_us, self.response_latency_us):
            if value is not None and value < 0:
                raise ValueError(f"latencies are never negative, got {value} us")

    @property
    def stop_latency_s(self) -> float | None:
        return None if self.stop_latency_us is None else self.stop_latency_us / 1e6

    @property
    def response_latency_s(self) -> float | None:
        return None if self.response_latency_us is None else self.response_latency_us / 1e6

    def stop_value(self) -> float | None:
        """Seconds for quantiles: ``+inf`` when censored, None when not speaking at onset."""
        if self.stop_status == "not_speaking_at_onset":
            return None
        return math.inf if self.stop_latency_s is None else self.stop_latency_s

    def response_value(self) -> float | None:
        """Seconds for quantiles: ``+inf`` for no response, None when there is nothing to
        time (speaking through the end, or the output ended by the overlap end)."""
        if self.response_status in ("speaking_through_end", "right_censored"):
            return None
        return math.inf if self.response_latency_s is None else self.response_latency_s


def trial_timing(segments: Sequence[Span], window: Span, output_end_us: int) -> TrialTiming:
    """The stop and response of one trial (``segments`` sorted and disjoint, as a Vad
    returns them; ``window`` is the overlap ``[a, b)``; ``output_end_us`` is ``T``)."""
    onset, end = window.start_us, window.end_us
    covering = next((s for s in segments if s.start_us <= onset < s.end_us), None)
    stop_latency = None
    if onset >= output_end_us or (covering is not None and covering.open_at_end):
        stop_status = "right_censored"
    elif covering is None:
        stop_status = "not_speaking_at_onset"
    else:
        stop_status, stop_latency = "stopped", covering.end_us - onset

    response_latency = None
    if end >= output_end_us:
        response_status = "right_censored"
    elif any(s.start_us < end < s.end_us for s in segments):
        response_status = "speaking_through_end"
    else:
        following = next((s for s in segments if s.start_us >= end), None)
        if following is None:
            response_status = "no_response"
        else:
            response_status, response_latency = "responded", following.start_us - end
    return TrialTiming(stop_status=stop_status, stop_latency_us=stop_latency,
                       response_status=response_status, response_latency_us=response_latency)


def bridge_pauses(segments: Sequence[Span], gap_us: int = BRIDGE_GAP_US) -> list[Span]:
    """Sorted, disjoint ``segments`` with every pause of at most ``gap_us`` joined: the
    joined span ends where its last piece ends (and is open at the end when that piece
    is)."""
    bridged: list[Span] = []
    for segment in segments:
        if bridged and segment.start_us - bridged[-1].end_us <= gap_us:
            bridged[-1] = Span(bridged[-1].start_us, segment.end_us,
                               open_at_end=segment.open_at_end)
        else:
            bridged.append(Span(segment.start_us, segment.end_us,
                                open_at_end=segment.open_at_end))
    return bridged


@dataclass(frozen=True)
class EventTiming:
    """The headline timing of one trial (pauses of at most ``bridge_gap_us`` bridged) and
    the same computation on the unbridged segments, kept as a diagnostic."""

    bridged: TrialTiming
    unbridged: TrialTiming
    bridge_gap_us: int = BRIDGE_GAP_US

    @property
    def stop_changed(self) -> bool:
        """Whether bridging changed the stop status or latency."""
        return (self.bridged.stop_status, self.bridged.stop_latency_us) != (
            self.unbridged.stop_status, self.unbridged.stop_latency_us)

    @property
    def response_changed(self) -> bool:
        """Whether bridging changed the response status or latency."""
        return (self.bridged.response_status, self.bridged.response_latency_us) != (
            self.unbridged.response_status, self.unbridged.response_latency_us)


def event_timing(segments: Sequence[Span], window: Span, output_end_us: int,
                 gap_us: int = BRIDGE_GAP_US) -> EventTiming:
    """:func:`trial_timing` on the bridged segments (the headline) and on the raw ones."""
    return EventTiming(trial_timing(bridge_pauses(segments, gap_us), window, output_end_us),
                       trial_timing(segments, window, output_end_us), gap_us)
