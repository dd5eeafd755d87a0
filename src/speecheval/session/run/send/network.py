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

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ...scenario.conditions import NetworkSpec

Outcome = Literal["ok", "lost", "late"]
DRAW_BLOCK = 256


@dataclass(frozen=True)
class PacketFate:
    """What the network did to one packet."""

    seq: int
    state: Literal["good", "bad"]
    delay_ms: float
    reordered: bool
    outcome: Outcome


class NetworkModel:
    """Every packet's fate, drawn ahead in blocks of :data:`DRAW_BLOCK` packets (the
    generator gives the same stream as drawing four numbers per packet), and the jitter
    buffer, a delay of ``depth`` frames."""

    def __init__(self, spec: NetworkSpec, frame_ms: float) -> None:
        self.spec = spec
        self.frame_ms = frame_ms
        self.rng = np.random.default_rng(spec.seed)
        self.bad = False
        self.depth = round(spec.buffer_ms / frame_ms)
        self.states: list[bool] = []
        self.delays: list[float] = []
        self.reordered: list[bool] = []
        self.outcomes: list[Outcome] = []

    def _draw(self) -> None:
        """The next :data:`DRAW_BLOCK` packets' fates, the state chain walked in order."""
        spec = self.spec
        u_loss, u_state, u_jitter, u_reorder = self.rng.random((DRAW_BLOCK, 4)).T
        states = []
        bad = self.bad
        for to_bad, stays_bad in zip((u_state < spec.p_good_to_bad).tolist(),
                                     (u_state >= spec.p_bad_to_good).tolist(), strict=True):
            states.append(bad)
            bad = stays_bad if bad else to_bad
        self.bad = bad
        in_bad = np.asarray(states)
        lost = u_loss < np.where(in_bad, spec.loss_bad, spec.loss_good)
        reordered = u_reorder < spec.reorder
        delay = u_jitter * spec.jitter_ms + np.where(reordered, self.frame_ms, 0.0)
        late = delay > spec.buffer_ms + 1e-9
        self.states += states
        self.delays += delay.tolist()
        self.reordered += reordered.tolist()
        self.outcomes += ["lost" if x else "late" if y else "ok"
                          for x, y in zip(lost.tolist(), late.tolist(), strict=True)]

    def fate(self, seq: int) -> PacketFate:
        """Packet ``seq``'s fate."""
        while seq >= len(self.outcomes):
            self._draw()
        return PacketFate(seq, "bad" if self.states[seq] else "good",
                          round(self.delays[seq], 3), self.reordered[seq], self.outcomes[seq])

    def played(self, slot: int) -> int | None:
        """The packet the receiver plays in frame slot ``slot`` (``depth`` frames after it
        was sent), or ``None`` for silence (the buffer filling, or that packet missing)."""
        seq = slot - self.depth
        if seq < 0:
            return None
        while seq >= len(self.outcomes):
            self._draw()
        return seq if self.outcomes[seq] == "ok" else None
