"""What one session run produces, whichever clock or transport produced it.

Both the virtual-clock runner (mock agent) and the real-clock runner (socket
transports) return a :class:`SessionRecording`; metrics and reports read only this.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class SessionRecording:
    """Both tracks on one timeline (sample 0 = session start) plus the event log.

    ``user`` is exactly what was sent; ``agent`` is agent audio placed at packet arrival
    through the playout buffer, with cleared (unplayed) audio removed. ``events`` are
    JSON-ready dicts with at least ``t_ms`` and ``type``. ``send_lateness_ms`` holds one
    value per user frame (0 on the virtual clock). ``fault`` is set when the agent failed;
    the recording up to the fault is still kept.
    """

    sample_rate: int
    user: NDArray[np.int16]
    agent: NDArray[np.int16]
    events: list[dict[str, Any]] = field(default_factory=list)
    send_lateness_ms: list[float] = field(default_factory=list)
    fault: str | None = None

    def scrubbed(self, scrub: Callable[[str], str]) -> SessionRecording:
        """A copy with every text of the event log and the fault passed through ``scrub``.

        The agent's words (an error event, a close reason) may echo a credential; the
        session scrubs them once, whichever clock or transport recorded them, before
        anything is written (see :mod:`speecheval.agents.redact`).
        """
        return replace(self, events=[_scrub_value(event, scrub) for event in self.events],
                       fault=None if self.fault is None else scrub(self.fault))


def _scrub_value(value: Any, scrub: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {key: _scrub_value(item, scrub) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrub_value(item, scrub) for item in value]
    return value
