"""Speech coverage and time IoU of the union of reference and hypothesis speech.

A system that writes one wide segment over the whole file would hit every boundary
tolerance of a loose metric; the union IoU exposes it. ``coverage`` is the share of
reference speech time inside hypothesis time, ``iou`` is intersection over union.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core.results import FieldwiseSum, Result
from ...core.share import fraction
from ...core.timebase import from_us
from .stream import TimedSegments


@dataclass(frozen=True)
class SpeechCoverage(FieldwiseSum, Result, kind="transcripts.speech_coverage"):
    """Reference, hypothesis and shared speech time in µs; ``+`` pools samples.

    >>> c = SpeechCoverage(reference_us=10, hypothesis_us=8, shared_us=6)
    >>> c.coverage, c.iou
    (0.6, 0.5)
    """

    reference_us: int
    hypothesis_us: int
    shared_us: int

    def __post_init__(self) -> None:
        if not 0 <= self.shared_us <= min(self.reference_us, self.hypothesis_us):
            raise ValueError(f"shared time outside [0, min(ref, hyp)]: {self!r}")

    @property
    def coverage(self) -> float | None:
        """Shared / reference speech time."""
        return fraction(self.shared_us, self.reference_us)

    @property
    def iou(self) -> float | None:
        """Shared / union speech time."""
        union = self.reference_us + self.hypothesis_us - self.shared_us
        return fraction(self.shared_us, union)

    def report_dict(self) -> dict[str, Any]:
        """Times in seconds and both shares."""
        return {"reference_speech_s": from_us(self.reference_us),
                "hypothesis_speech_s": from_us(self.hypothesis_us),
                "shared_speech_s": from_us(self.shared_us),
                "speech_coverage": self.coverage, "speech_iou": self.iou}


def speech_coverage(reference: TimedSegments, hypothesis: TimedSegments) -> SpeechCoverage:
    """Time covered by each side and by both (:mod:`speecheval.core.timeline`)."""
    ref, hyp = reference.spans(), hypothesis.spans()
    return SpeechCoverage(ref.covered_us(), hyp.covered_us(), ref.overlap_us(hyp))
