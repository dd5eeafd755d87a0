"""Silero speech segments of interruption outputs, checked against the manifest.

Each ``output.wav`` is read once: its bytes are hashed (to prove it is the file the
manifest lists), decoded, checked to hold exactly round(T * rate) samples, and passed to
the speech detector, a :class:`speecheval.vad.base.Vad` (Silero defines speech for FDB
v1.0). Files are independent, so they are spread over worker processes; the caller's
``advance`` is called once per finished file, for the progress display.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ...core.audio import Audio, read_mono
from ...core.errors import InputError
from ...core.hashing import sha256_bytes
from ...core.progress import Advance
from ...core.timebase import to_us
from ...core.timeline import Span, Spans
from ...vad.base import Vad


@dataclass(frozen=True)
class SpeechJob:
    """One file to segment, with what the manifest says it must be."""

    sample_id: str
    path: Path
    expected_sha256: str
    duration_s: float


_worker_vad: Vad | None = None


def _vad() -> Vad:
    """This process's Silero instance (imported late: onnxruntime is slow to import)."""
    global _worker_vad
    if _worker_vad is None:
        from ...vad.silero import SileroVad

        _worker_vad = SileroVad()
    return _worker_vad


def expected_samples(duration_s: float, rate: int) -> int:
    """round(T * rate): the sample count an output of T seconds must have."""
    return round(duration_s * rate)


def read_output(path: Path, expected_sha256: str, duration_s: float,
                sample_id: str) -> Audio:
    """Read one output.wav after checking it is the file manifest.json names (its
    SHA-256) and holds exactly round(T * rate) samples; anything else is bad input."""
    if not path.is_file():
        raise InputError("output.wav is missing", path=path, sample_id=sample_id)
    data = path.read_bytes()
    actual = sha256_bytes(data)
    if actual != expected_sha256:
        raise InputError(f"output.wav differs from manifest.json (sha256 {actual[:12]}..., "
                         f"manifest {expected_sha256[:12]}...)", path=path,
                         sample_id=sample_id)
    audio = read_mono(io.BytesIO(data), name=path, sample_id=sample_id)
    want = expected_samples(duration_s, audio.rate)
    if audio.n_samples != want:
        raise InputError(f"output.wav holds {audio.n_samples} samples at {audio.rate} Hz, "
                         f"but T = {duration_s} s needs exactly {want}", path=path,
                         sample_id=sample_id)
    return audio


def segment_file(job: SpeechJob) -> Spans:
    """Verify one output.wav and return its speech segments in microseconds."""
    audio = read_output(job.path, job.expected_sha256, job.duration_s, job.sample_id)
    duration_us = to_us(job.duration_s)
    file_end_us = to_us(audio.duration_s)
    try:
        found = _vad().segments(audio)
    except InputError as exc:
        raise InputError(exc.problem, path=job.path, sample_id=job.sample_id) from exc
    return Spans.from_spans(
        Span(min(s.start_us, duration_us), _segment_end(s.end_us, file_end_us, duration_us))
        for s in found)


def _segment_end(end_us: int, file_end_us: int, duration_us: int) -> int:
    """A segment that reaches the end of the file runs to T.

    The file holds round(T * rate) samples, so it can end up to half a sample before (or
    after) T: speech running to its last sample must still count as running to T (no
    observed stop), and nothing may end after T.

    >>> _segment_end(10_000_167, 10_000_167, 10_000_188)
    10000188
    >>> _segment_end(9_000_000, 10_000_167, 10_000_188)
    9000000
    """
    return duration_us if end_us >= file_end_us else min(end_us, duration_us)


def default_jobs() -> int:
    """Worker processes to use: one per available core."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def segment_files(jobs: Sequence[SpeechJob], workers: int, advance: Advance) -> list[Spans]:
    """Segments of every job, in order; ``workers`` <= 1 runs in this process."""
    found: list[Spans] = []
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            found.append(segment_file(job))
            advance()
        return found
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for spans in pool.map(segment_file, jobs,
                              chunksize=max(1, len(jobs) // (4 * workers))):
            found.append(spans)
            advance()
    return found


def vad_identity() -> dict[str, object]:
    """Silero version, model hash and settings, as recorded in unified.json."""
    return _vad().identity()


def vad_model_files() -> dict[str, Path]:
    """The Silero model files by name, for the provenance record's model hashes."""
    from ...vad.silero_model import locate_model_files

    files = locate_model_files()
    return {path.name: path for path in (files.streaming, files.sequence)}
