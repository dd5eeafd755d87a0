"""One job (system x track x sample x repeat): call the system and write its raw folder once.

The folder is written under a temporary name beside its final one and renamed when
complete, so a folder that exists is a finished job (succeeded, failed or unsupported)
and ``--resume`` runs exactly the jobs without one; a half-written folder left by a crash
is removed and the job run again. Nothing in a finished folder is ever rewritten.

Every answer is scrubbed of the run's secrets (the key variables of its systems, see
:func:`speecheval.core.redact.run_scrubber`) before anything of it is hashed or
written: its raw files, its reason and its facts. A system that prints or echoes a key
leaves ``REDACTED`` in its place, in the raw folder and in every transcript derived from
it.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ...core.canonical_json import dumps
from ...core.hashing import sha256_bytes
from ...core.redact import Scrubber
from ...core.share import fraction
from .chunker import windows
from .input_audio import RATE, Pcm
from .systems.base import Answer, System
from .tracks import track_dir

META = "meta.json"


@dataclass(frozen=True)
class Job:
    """Which call, and its fixed seed."""

    system: str
    track: str
    sample: str
    repeat: int
    seed: int

    @property
    def key(self) -> str:
        return f"{self.system}/{track_dir(self.track)}/{self.sample}/r{self.repeat}"

    @property
    def raw(self) -> Path:
        """The raw folder, relative to the run directory."""
        return Path("raw") / self.key

    @property
    def derived(self) -> Path:
        """The folder of derived artefacts, relative to the run directory."""
        return Path("derived") / self.key


def write_unsupported(job: Job, reason: str, target: Path, audio_s: float
                      ) -> dict[str, Any]:
    """Record, without a call, that the track does not apply (``audio_s``: the length of
    the audio the job was given, so a run's engineering facts count it)."""
    meta = _meta(job, "unsupported", reason, None, {}, None, audio_s, 0.0, None, 0, 0.0)
    _publish(target, {}, meta)
    return meta


def write_failed(job: Job, reason: str, target: Path, audio_s: float) -> dict[str, Any]:
    """Record a job whose call never came back (its worker process died), with why and the
    length of the audio it was given."""
    meta = _meta(job, "failed", reason, "worker process died", {}, None, audio_s, 0.0, None,
                 0, 0.0)
    _publish(target, {}, meta)
    return meta


def run_job(system: System, job: Job, pcm: Pcm, offset_s: float,
            chunks: list[tuple[int, int]] | None, target: Path, scrub: Scrubber,
            overlap: int = 0) -> dict[str, Any]:
    """Call ``system`` on ``pcm`` (whole, or chunk by chunk, each chunk after the first
    from ``overlap`` samples before its cut) and write the raw folder, every answer
    scrubbed by ``scrub``."""
    files: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="speecheval-job-") as scratch:
        started = time.perf_counter()
        if chunks is None:
            answer = _transcribe(system, pcm, job, Path(scratch), scrub)
            files = dict(answer.files)
            chunk_facts = None
        else:
            answer, chunk_facts = _chunked(system, job, pcm, chunks, Path(scratch), files,
                                           scrub, overlap)
        wall = time.perf_counter() - started
    response_files = {name: sha256_bytes(data) for name, data in sorted(files.items())}
    meta = _meta(job, answer.status, answer.reason, answer.runner_stop_reason,
                 response_files, answer.generation, pcm.duration_s, wall,
                 answer.peak_memory_bytes, answer.retries, offset_s)
    meta["peak_memory_scope"] = answer.peak_memory_scope
    if chunk_facts is not None:
        meta["chunks"] = chunk_facts
    _publish(target, files, meta)
    return meta


def _transcribe(system: System, pcm: Pcm, job: Job, scratch: Path, scrub: Scrubber
                ) -> Answer:
    """One call of ``system``, its answer scrubbed: files, reason and facts."""
    answer = system.transcribe(pcm, job.seed, job.sample, scratch)
    return replace(answer, files={name: scrub.raw(data) for name, data in answer.files.items()},
                   reason=None if answer.reason is None else scrub(answer.reason),
                   generation=scrub.data(answer.generation))


def _chunked(system: System, job: Job, pcm: Pcm, chunks: list[tuple[int, int]],
             scratch: Path, files: dict[str, bytes], scrub: Scrubber, overlap: int
             ) -> tuple[Answer, list[dict[str, Any]]]:
    """Each chunk as its own call; the job fails if any chunk does (all are still run).
    With ``overlap`` a chunk's facts add its ``cut_s`` (``start_s`` is where its audio
    begins)."""
    facts = []
    answers = []
    for index, (start, cut, end) in enumerate(windows(chunks, overlap)):
        folder = scratch / f"chunk-{index:03d}"
        folder.mkdir()
        answer = _transcribe(system, pcm.crop(start, end), job, folder, scrub)
        answers.append(answer)
        prefix = f"chunk-{index:03d}/"
        files.update({prefix + name: data for name, data in answer.files.items()})
        facts.append({"index": index, "start_s": start / RATE, "end_s": end / RATE,
                      "status": answer.status, "reason": answer.reason,
                      "runner_stop_reason": answer.runner_stop_reason,
                      "token_count": answer.generation.get("token_count"),
                      "retries": answer.retries, **({"cut_s": cut / RATE} if overlap else {})})
    failed = [f for f in facts if f["status"] == "failed"]
    reason = None
    if failed:
        first = failed[0]
        reason = (f"{len(failed)} of {len(facts)} chunks failed; chunk {first['index']} "
                  f"({first['start_s']:g}-{first['end_s']:g} s): {first['reason']}")
    counts = [a.generation.get("token_count") for a in answers]
    generation = {"token_count": sum(c for c in counts if c is not None)
                  if all(c is not None for c in counts) else None,
                  "config": answers[0].generation.get("config"), "eos": None,
                  "stop_reason": None}
    peaks = [a.peak_memory_bytes for a in answers if a.peak_memory_bytes is not None]
    scopes = {a.peak_memory_scope for a in answers if a.peak_memory_bytes is not None}
    answer = Answer({}, "failed" if failed else "succeeded", reason,
                    f"{len(chunks)} chunk calls ended", generation,
                    sum(a.retries for a in answers), max(peaks) if peaks else None,
                    # the largest chunk's peak is the job's if each chunk's was its own
                    None if not scopes else "job" if scopes == {"job"} else "process")
    return answer, facts


def _meta(job: Job, status: str, reason: str | None, stop: str | None,
          response_files: dict[str, str], generation: dict[str, Any] | None,
          audio_s: float, wall_s: float, peak: int | None, retries: int,
          offset_s: float) -> dict[str, Any]:
    return {"system": job.system, "track": job.track, "sample": job.sample,
            "repeat": job.repeat, "seed": job.seed, "status": status, "reason": reason,
            "runner_stop_reason": stop, "response_files": response_files,
            "generation": generation, "audio_s": audio_s, "wall_s": wall_s,
            "rtf": fraction(wall_s, audio_s), "peak_memory_bytes": peak,
            "peak_memory_scope": None,
            "retries": retries, "offset_s": offset_s}


def _publish(target: Path, files: dict[str, bytes], meta: dict[str, Any]) -> None:
    """Write the folder under a temporary name, then rename it into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.parent / f".{target.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    for name, data in files.items():
        path = staging / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (staging / META).write_text(dumps(meta), encoding="utf-8")
    staging.rename(target)


def raw_sha256(meta: dict[str, Any]) -> str | None:
    """The SHA-256 of the raw answer: of its one response file, or, for several (chunks),
    of the canonical JSON listing each file's SHA-256; None when nothing was answered."""
    responses = {name: sha for name, sha in meta["response_files"].items()
                 if name.rsplit("/", 1)[-1].startswith("response")}
    if not responses:
        return None
    if len(responses) == 1:
        return str(next(iter(responses.values())))
    return sha256_bytes(dumps(responses).encode("utf-8"))
