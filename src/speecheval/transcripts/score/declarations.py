"""Where a system's speaker labels and timestamps come from, as the system declares it.

The spec keeps apart what a system does itself from what another component adds:

- **speaker labels** (Diarization 协议): ``joint`` when they come from the system's own
  decoding (joint ASR and diarization), ``external`` when an external diarizer adds
  them. The two are separate tracks and never ranked together; an external diarizer's
  labels are not the system's own speaker attribution.
- **timestamps** (时间戳协议): ``native`` when the system produces them, ``forced_aligner``
  when a forced aligner adds them afterwards (reported as ``supported_via_forced_aligner``,
  never as the native capability).
- **timestamp_max_input_s**: the longest input the timestamp provider officially supports
  (for example 300 s for an aligner documented up to 5 minutes). The timestamps of a
  longer sample are ``out_of_official_input_range``: left out of the timestamp table and
  counted, not ranked.

The same keys are part of a ``transcripts run`` system's identity (and so of its
lineage) and of a score manifest's top level. Nothing is declared by default, and an
undeclared key changes no output.

This module imports pydantic: import it inside the command that reads a manifest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from ...core.decimal_seconds import MAX_SECONDS
from ...core.schema import Schema

SpeakerLabels = Literal["joint", "external"]
TimestampSource = Literal["native", "forced_aligner"]
OUT_OF_RANGE = "out_of_official_input_range"
VIA_ALIGNER = "supported_via_forced_aligner"
DECLARATION_KEYS = ("speaker_labels", "timestamp_source", "timestamp_max_input_s")


class SystemDeclarations(Schema):
    """The declaration keys of a system (see the module)."""

    speaker_labels: SpeakerLabels | None = None
    timestamp_source: TimestampSource | None = None
    timestamp_max_input_s: Annotated[float | None, Field(gt=0, le=MAX_SECONDS)] = None

    def declared(self) -> Declared:
        """The declarations as a plain value (what scoring carries)."""
        return Declared(self.speaker_labels, self.timestamp_source,
                        self.timestamp_max_input_s)


@dataclass(frozen=True)
class Declared:
    """A system's declarations (``None``: not declared)."""

    speaker_labels: str | None = None
    timestamp_source: str | None = None
    timestamp_max_input_s: float | None = None

    def report_dict(self) -> dict[str, Any]:
        """The declared keys only (an identity or ``scenarios.json`` holds nothing for an
        undeclared one)."""
        return {key: value for key in DECLARATION_KEYS
                if (value := getattr(self, key)) is not None}

    def timestamp_support(self, supported: bool) -> str:
        """``supported``, ``supported_via_forced_aligner`` or ``unsupported``."""
        if not supported:
            return "unsupported"
        return VIA_ALIGNER if self.timestamp_source == "forced_aligner" else "supported"

    def out_of_range(self, duration_s: float) -> str | None:
        """Why the timestamps of a sample of ``duration_s`` are not ranked (``None``: they
        are within the provider's official input range, or none is declared)."""
        limit = self.timestamp_max_input_s
        if limit is None or duration_s <= limit:
            return None
        return (f"{OUT_OF_RANGE}: the sample lasts {duration_s:g} s, longer than the "
                f"{limit:g} s the timestamp provider officially supports (excluded and "
                "counted)")
