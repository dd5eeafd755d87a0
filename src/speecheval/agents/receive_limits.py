"""How much of what an agent sends a session keeps: the caps that bound what a hostile
agent costs in memory and disk, one definition for every live session (the benchmark
capture of ``fdb10``/``fdb15 record`` and ``session run``).

Both caps scale with the session's reference length, the audio the session is about (a
capture's input; a scenario's scripted length), so a long sample may receive more than a
short one:

* audio: at most ``max_received_ratio`` times the reference length in samples;
* events (every message the transport decodes: audio, transcripts, clears and the
  protocol's other events): at most ``max_events_per_s`` per second of the reference
  length, since tiny messages pass an audio cap only slowly (a one-sample message each)
  and the other events would pass no cap at all.

The event that would pass a cap is not kept; its reason, naming the cap and what was
kept, is the session's fault, and receiving stops. What the agent still has in flight is
read and dropped while the connection closes (:func:`close_discarding`), so an agent that
keeps flooding cannot hold the close up either.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from .base import AgentTransport

MAX_RECEIVED_RATIO = 10.0
"""The default cap on the agent audio kept, as a multiple of the reference length: ten
times what a full-duplex agent streaming in real time sends in that time, room for a
turn-based agent that sends a long reply faster than real time."""
MAX_EVENTS_PER_S = 1000.0
"""The default cap on the events kept per second of the reference length: an agent that
sends its whole audio cap in 10 ms messages uses the first thousand, and transcripts and
the protocol's events have as many again before ten times the reference is spent."""


@dataclass(frozen=True)
class ReceiveLimits:
    """The caps a session's agent is held to (see the module docstring)."""

    max_received_ratio: float = MAX_RECEIVED_RATIO
    max_events_per_s: float = MAX_EVENTS_PER_S


DEFAULT_LIMITS = ReceiveLimits()


class ReceiveBudget:
    """One session's account against its :class:`ReceiveLimits`.

    ``reference`` names the reference length in a reason, as a possessive ("the input's").

    >>> budget = ReceiveBudget(ReceiveLimits(2, 3), 8000, 16000, "the input's")
    >>> budget.audio_cap, budget.event_cap          # 2 x 8000; 3 per second x 0.5 s
    (16000, 1)
    >>> budget.audio(10000), budget.event()
    (None, None)
    >>> budget.audio(8000)
    "agent sent more audio than the cap of 2 x the input's 8000 samples (16000 samples); \
receiving stopped with 10000 samples kept"
    >>> budget.event()
    "agent sent more events than the cap of 3 per second of the input's 0.5 s (1 events); \
receiving stopped with 1 events kept"
    """

    def __init__(self, limits: ReceiveLimits, reference_samples: int, rate: int,
                 reference: str) -> None:
        self.limits = limits
        self.reference_samples = reference_samples
        self.rate = rate
        self.reference = reference
        self.audio_cap = int(limits.max_received_ratio * reference_samples)
        self.event_cap = int(limits.max_events_per_s * reference_samples / rate)
        self.samples = 0
        self.events = 0
        self.exceeded = False

    def event(self) -> str | None:
        """Count one event the agent sent, before it is kept; None while it fits, else
        the fault reason (the event is not counted: it is not kept)."""
        if self.events + 1 > self.event_cap:
            self.exceeded = True
            return (f"agent sent more events than the cap of "
                    f"{self.limits.max_events_per_s:g} per second of {self.reference} "
                    f"{self.reference_samples / self.rate:g} s ({self.event_cap} events); "
                    f"receiving stopped with {self.events} events kept")
        self.events += 1
        return None

    def audio(self, samples: int) -> str | None:
        """Count ``samples`` of agent audio, before they are kept; None while they fit,
        else the fault reason (they are not counted: they are not kept)."""
        if self.samples + samples > self.audio_cap:
            self.exceeded = True
            return (f"agent sent more audio than the cap of "
                    f"{self.limits.max_received_ratio:g} x {self.reference} "
                    f"{self.reference_samples} samples ({self.audio_cap} samples); "
                    f"receiving stopped with {self.samples} samples kept")
        self.samples += samples
        return None


async def close_discarding(transport: AgentTransport) -> None:
    """Close a connection whose agent was still flooding when receiving stopped.

    Its messages fill the socket ahead of the agent's answer to the close, so the close
    would wait out its timeout while nothing reads; what arrives is read and dropped
    until the connection ends, one message at a time.
    """
    async def discard() -> None:
        async for _ in transport.events():
            pass

    draining = asyncio.create_task(discard())
    try:
        await transport.close()
    finally:
        draining.cancel()
        await asyncio.gather(draining, return_exceptions=True)
