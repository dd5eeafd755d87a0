"""A seeded network between the caller and the agent: burst loss, jitter, reordering.

One packet carries one user frame. For packet ``i`` the model draws four numbers from
``numpy.random.default_rng(seed)``, always in this order and always all four, so the
fate of every packet can be worked out by hand from the generator's output:

1. ``u_loss``: the packet is lost when ``u_loss < loss_good`` (good state) or
   ``< loss_bad`` (bad state), in the state the channel is in for this packet;
2. ``u_state``: then the channel moves good -> bad when ``u_state < p_good_to_bad``,
   bad -> good when ``u_state < p_bad_to_good`` (the Gilbert-Elliott model; the first
   packet finds the channel good);
3. ``u_jitter``: the packet's delay is ``u_jitter * jitter_ms``;
4. ``u_reorder``: when ``u_reorder < reorder`` the packet is held back one frame more,
   so it arrives after the next one.

The receiver plays packet ``i`` ``buffer_ms`` after it was sent (a fixed jitter buffer);
a packet whose delay is more than that is late and, like a lost one, leaves a frame of
silence. The first ``buffer_ms`` of the session are silence too.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from .conditions import NetworkSpec

Outcome = Literal["ok", "lost", "late"]


@dataclass(frozen=True)
class PacketFate:
    """What the network did to one packet."""

    seq: int
    state: Literal["good", "bad"]
    delay_ms: float
    reordered: bool
    outcome: Outcome


class NetworkModel:
    """Decides each packet's fate in order and plays packets out of the jitter buffer."""

    def __init__(self, spec: NetworkSpec, frame_ms: float, frame: int) -> None:
        self.spec = spec
        self.frame_ms = frame_ms
        self.rng = np.random.default_rng(spec.seed)
        self.bad = False
        self.seq = 0
        self.depth = round(spec.buffer_ms / frame_ms)
        self.silence = np.zeros(frame, dtype=np.int16)
        self.buffer: deque[NDArray[np.int16]] = deque([self.silence] * self.depth)

    def fate(self) -> PacketFate:
        """The next packet's fate (advances the channel)."""
        spec = self.spec
        u_loss, u_state, u_jitter, u_reorder = self.rng.random(4)
        state: Literal["good", "bad"] = "bad" if self.bad else "good"
        lost = u_loss < (spec.loss_bad if self.bad else spec.loss_good)
        self.bad = (u_state >= spec.p_bad_to_good) if self.bad else (u_state < spec.p_good_to_bad)
        reordered = bool(u_reorder < spec.reorder)
        delay = float(u_jitter) * spec.jitter_ms + (self.frame_ms if reordered else 0.0)
        outcome: Outcome = ("lost" if lost else "late" if delay > spec.buffer_ms + 1e-9
                            else "ok")
        fate = PacketFate(self.seq, state, round(delay, 3), reordered, outcome)
        self.seq += 1
        return fate

    def send(self, frame: NDArray[np.int16]) -> tuple[NDArray[np.int16], PacketFate]:
        """Send one frame; return the frame the receiver plays now, and the sent one's fate."""
        fate = self.fate()
        self.buffer.append(frame if fate.outcome == "ok" else self.silence)
        return self.buffer.popleft(), fate
