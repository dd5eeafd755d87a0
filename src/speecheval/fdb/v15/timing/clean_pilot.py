"""The paper's Table 1 pilot on one clean (context-only) session.

Before placing the overlaps, the paper played each system the context turn alone and
measured how soon it answered and how long it spoke. ``fdb15 record`` records that
session for every pair (``clean_input.wav`` heard, ``clean_output.wav`` played out), so
``fdb15 score`` measures the same two things on it, with the rules of :mod:`.trial`:

* the context turn ends at :func:`.user_end.context_end` (Silero on ``clean_input.wav``);
* the system's pauses of at most 0.5 s are bridged (:func:`.trial.bridge_pauses`);
* **response latency** = start of the first system segment at or after the context end
  minus that end (status ``responded``; ``speaking_through_end`` when a segment runs
  across the context end, ``no_response`` when nothing starts after it,
  ``right_censored`` when the output ends by then) -- :func:`.trial.trial_timing`'s
  response on the zero-length window at the context end;
* **output length** = end of the system's last speech minus the start of its reply (the
  first segment that ends after the context end, from the context end at the earliest):
  the reply's extent, pauses included; ``output_length_censored`` when the output file
  ends while the system is still speaking (the length is then a lower bound).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ....core.timebase import from_us
from ....core.timeline import Span
from .trial import RESPONSE_STATUSES, bridge_pauses, trial_timing
from .user_end import context_end

NO_CONTEXT = "no_user_speech"
"""The response status when Silero finds no speech in clean_input.wav."""
PILOT_RESPONSE_STATUSES = (*RESPONSE_STATUSES, NO_CONTEXT)


@dataclass(frozen=True)
class CleanPilot:
    """Response latency after the context turn and output length of one clean session."""

    context_end_us: int | None
    response_status: str
    response_latency_us: int | None
    output_length_us: int | None
    output_length_censored: bool

    def report_dict(self) -> dict[str, Any]:
        """The ``clean_*`` fields of the trial's line of ``timing-samples.jsonl``."""
        def seconds(value: int | None) -> float | None:
            return None if value is None else from_us(value)

        return {"clean_context_end_s": seconds(self.context_end_us),
                "clean_response_status": self.response_status,
                "clean_response_latency_s": seconds(self.response_latency_us),
                "clean_output_length_s": seconds(self.output_length_us),
                "clean_output_length_censored": self.output_length_censored}


def clean_pilot(user_segments: Sequence[Span], model_segments: Sequence[Span],
                output_end_us: int) -> CleanPilot:
    """The pilot's two numbers from Silero segments of clean_input.wav and
    clean_output.wav (``output_end_us``: the clean output's length)."""
    end = context_end(user_segments)
    bridged = bridge_pauses(model_segments)
    if end is None:
        return CleanPilot(None, NO_CONTEXT, None, None, False)
    timing = trial_timing(bridged, Span(end, end), output_end_us)
    reply = [s for s in bridged if s.end_us > end]
    length = reply[-1].end_us - max(reply[0].start_us, end) if reply else None
    return CleanPilot(end, timing.response_status, timing.response_latency_us, length,
                      bool(reply) and reply[-1].open_at_end)
