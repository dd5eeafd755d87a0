"""What every system adapter offers: one call on a PCM input, and a parser of its raw answer.

A call returns an :class:`Answer`: the raw files exactly as the system gave them (written
once into the job's raw folder), whether the call succeeded and why not, and the
engineering facts the system reports. Parsing a raw answer into segments is a separate,
module-level function per adapter (:data:`PARSERS` in :mod:`.registry`), so a new rule
version derives transcripts from saved raw answers without building, let alone calling,
the system.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from ..input_audio import Pcm

Status = Literal["succeeded", "failed"]


@dataclass(frozen=True)
class Answer:
    """The outcome of one call."""

    files: dict[str, bytes]
    status: Status
    reason: str | None
    runner_stop_reason: str
    generation: dict[str, Any] = field(default_factory=lambda: dict(NOT_REPORTED))
    retries: int = 0
    peak_memory_bytes: int | None = None


NOT_REPORTED: dict[str, Any] = {"token_count": None, "config": None, "eos": None,
                                "stop_reason": None}
"""``generation`` of a system that reports none of these."""


class System(Protocol):
    """A transcription system under test."""

    name: str
    adapter: str
    native_context_s: float | None
    """The longest input the system decodes in one global pass (None: not declared)."""

    def identity(self) -> dict[str, Any]:
        """Backend, model and revision, every setting, package versions."""
        ...

    def model_revision(self) -> dict[str, Any]:
        """What identifies the model (file hashes, a model name, a declared version)."""
        ...

    def config(self) -> dict[str, Any]:
        """The request configuration of every call (what the lineage records)."""
        ...

    def transcribe(self, pcm: Pcm, seed: int, sample_id: str, scratch: Path) -> Answer:
        """Transcribe ``pcm``; the system's own failures are a failed Answer."""
        ...


def own_peak_memory_bytes() -> int:
    """This process's peak resident memory so far (Linux reports kibibytes)."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024
