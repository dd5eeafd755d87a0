"""What every system adapter offers: one call on a PCM input, and a parser of its raw answer.

A call returns an :class:`Answer`: the raw files exactly as the system gave them (written
once into the job's raw folder), whether the call succeeded and why not, and the
engineering facts the system reports. Parsing a raw answer into segments is a separate,
module-level function per adapter (:data:`PARSERS` in :mod:`.registry`), so a new rule
version derives transcripts from saved raw answers without building, let alone calling,
the system.
"""

from __future__ import annotations

import re
import resource
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from ..input_audio import Pcm

Status = Literal["succeeded", "failed"]
PeakScope = Literal["job", "process"]
"""``job``: the peak resident memory of this call alone (a command's own process, or
this process with its high-water mark reset before the call); ``process``: this
process's peak since it started, which includes every earlier call it made (the
high-water mark could not be reset)."""


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
    peak_memory_scope: PeakScope | None = None
    """What ``peak_memory_bytes`` is the peak of (:data:`PeakScope`); ``None``: not
    measured (a remote system)."""


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


_CLEAR_REFS = "/proc/self/clear_refs"
_STATUS = "/proc/self/status"


def start_peak_memory() -> PeakScope:
    """Reset this process's resident high-water mark before a call, so the peak read after
    it (:func:`own_peak_memory_bytes`) is the call's alone: on Linux writing ``5`` to
    ``/proc/self/clear_refs`` resets ``VmHWM`` in ``/proc/self/status``. Elsewhere (or
    where the kernel refuses) nothing can be reset: ``process``, honestly."""
    try:
        with open(_CLEAR_REFS, "w", encoding="ascii") as handle:
            handle.write("5")
    except OSError:
        return "process"
    return "job" if _vm_hwm_bytes() is not None else "process"


def own_peak_memory_bytes() -> int:
    """This process's peak resident memory since :func:`start_peak_memory` reset it
    (``VmHWM``), else since it started (``ru_maxrss``: kibibytes on Linux, bytes on
    macOS)."""
    found = _vm_hwm_bytes()
    if found is not None:
        return found
    peak = int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return peak if sys.platform == "darwin" else peak * 1024


def _vm_hwm_bytes() -> int | None:
    try:
        with open(_STATUS, encoding="ascii", errors="replace") as handle:
            match = re.search(r"^VmHWM:\s+(\d+) kB", handle.read(), re.MULTILINE)
    except OSError:
        return None
    return None if match is None else int(match.group(1)) * 1024
