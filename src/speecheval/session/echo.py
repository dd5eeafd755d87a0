"""Acoustic echo: the agent's played voice back in the caller's microphone.

A loudspeaker and a microphone in one room (a speakerphone, a car) put the agent's own
output on the user track, ``delay_ms`` later and ``level_db`` quieter, plus a few room
reflections after it. An agent that cannot tell its echo from the caller interrupts
itself; the self-interruption metric (:mod:`speecheval.session.condition_metrics`) finds
that. The echo of a frame always lands in a later frame (the scenario reader requires
``delay_ms >= frame_ms``), so it is made only from agent audio that has already played.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..core.synthetic_signals import db_to_amplitude, samples_for_ms
from .conditions import EchoSpec


class AgentHistory:
    """The agent track as it has played so far, contiguous from sample 0."""

    def __init__(self) -> None:
        self.data = np.zeros(1 << 16, dtype=np.float64)
        self.size = 0

    def push(self, played: NDArray[np.int16]) -> None:
        end = self.size + played.size
        if end > self.data.size:
            grown = np.zeros(max(end, 2 * self.data.size))
            grown[:self.size] = self.data[:self.size]
            self.data = grown
        self.data[self.size:end] = played
        self.size = end

    def add_to(self, out: NDArray[np.float64], start: int, gain: float) -> None:
        """Add ``gain`` times the history from sample ``start`` (may be negative: silence
        before the session) into ``out``; samples not yet played count as silence."""
        lo, hi = max(start, 0), min(start + out.size, self.size)
        if hi > lo:
            out[lo - start:hi - start] += gain * self.data[lo:hi]


class Echo:
    """The echo paths (direct, then the reflections) as (delay in samples, gain)."""

    def __init__(self, spec: EchoSpec, rate: int) -> None:
        direct = samples_for_ms(spec.delay_ms, rate)
        gain = db_to_amplitude(spec.level_db)
        self.paths = [(direct, gain)] + [
            (direct + samples_for_ms(r.delay_ms, rate), gain * db_to_amplitude(r.level_db))
            for r in spec.reflections]

    def add(self, mic: NDArray[np.float64], pos: int, agent: AgentHistory) -> None:
        """Add the echo heard in the frame that starts at sample ``pos`` to ``mic``."""
        for delay, gain in self.paths:
            agent.add_to(mic, pos - delay, gain)
