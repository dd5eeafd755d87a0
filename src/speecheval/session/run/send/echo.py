"""Acoustic echo: the agent's played voice back in the caller's microphone.

A loudspeaker and a microphone in one room (a speakerphone, a car) put the agent's own
output on the user track, ``delay_ms`` later and ``level_db`` quieter, plus a few room
reflections after it. An agent that cannot tell its echo from the caller interrupts
itself; the self-interruption metric (:mod:`speecheval.session.metrics.condition_metrics`) finds
that. The echo of a frame always lands in a later frame (the scenario reader requires
``delay_ms >= frame_ms``), so the echo made from agent audio that has already played is
final up to :attr:`Echo.direct` samples ahead; further ahead the send path reads the
agent audio queued so far and works the echo out again when that changes.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ....core.synthetic_signals import db_to_amplitude, samples_for_ms
from ...scenario.conditions import EchoSpec
from ..track import Track


class Echo:
    """The echo paths (direct, then the reflections) as (delay in samples, gain)."""

    def __init__(self, spec: EchoSpec, rate: int) -> None:
        self.direct = samples_for_ms(spec.delay_ms, rate)
        gain = db_to_amplitude(spec.level_db)
        self.paths = [(self.direct, gain)] + [
            (self.direct + samples_for_ms(r.delay_ms, rate), gain * db_to_amplitude(r.level_db))
            for r in spec.reflections]

    def add(self, mic: NDArray[np.float64], pos: int, agent: Track[np.int16]) -> None:
        """Add the echo heard in the samples from ``pos`` to ``mic``, from the agent track
        as ``agent`` holds it up to ``pos + mic.size - direct`` (zeros after it)."""
        for delay, gain in self.paths:
            start = pos - delay
            lo = max(start, 0)
            if start + mic.size > lo:
                mic[lo - start:] += gain * agent.view(lo, start + mic.size)  # float64
