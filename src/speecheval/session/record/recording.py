"""What one session run produces, whichever clock or transport produced it.

Both the virtual-clock runner (mock agent) and the real-clock runner (socket
transports) return a :class:`SessionRecording`; metrics and reports read only this.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from .events import Event


@dataclass(frozen=True)
class SessionRecording:
    """Both tracks on one timeline (sample 0 = session start) plus the event log.

    ``user`` is exactly what was sent; ``agent`` is agent audio placed at packet arrival
    through the playout buffer, with cleared (unplayed) audio removed. ``events`` are
    typed events (:mod:`speecheval.session.record.events`) in time order.
    ``send_lateness_ms`` holds one value per user frame (0 on the virtual clock).
    ``fault`` is set when the agent failed; the recording up to the fault is still kept.
    ``sent`` is what the agent received when the scenario declares ``conditions`` (echo,
    noise, codec, network), else None: ``user`` is then the clean script, the reference
    for the metrics.
    """

    sample_rate: int
    user: NDArray[np.int16]
    agent: NDArray[np.int16]
    events: list[Event] = field(default_factory=list)
    send_lateness_ms: list[float] = field(default_factory=list)
    fault: str | None = None
    sent: NDArray[np.int16] | None = None

    def scrubbed(self, scrub: Callable[[str], str]) -> SessionRecording:
        """A copy with every text of the event log and the fault passed through ``scrub``.

        The agent's words (an error event, a close reason) may echo a credential; the
        session scrubs them once, whichever clock or transport recorded them, before
        anything is written (see :mod:`speecheval.core.redact`).
        """
        return replace(self, events=[event.scrubbed(scrub) for event in self.events],
                       fault=None if self.fault is None else scrub(self.fault))

