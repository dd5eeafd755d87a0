"""A run's engineering facts: ``engineering.json`` and ``engineering.md`` in the run folder.

Per system and track (never pooled across them, as the tracks' scores are not), from the
jobs' ``meta.json`` and derived transcripts:

- jobs by status, and the failure rate: failed jobs over the jobs that ran (succeeded +
  failed; an unsupported job never ran, so it is counted apart, not as a failure);
- the real-time factor (a job's wall seconds over its audio seconds) of the succeeded
  jobs: min, median, P90, max (percentiles interpolated linearly between order
  statistics, numpy's default);
- the peak resident memory of each job that measured one, the same four numbers, and
  how many of those peaks are the job's own (``job``) or its process's since it started
  (``process``, where the high-water mark could not be reset; see
  :func:`.systems.base.start_peak_memory`);
- character density: characters of the derived transcript (whitespace left out, so it
  means the same in every script) per second of the audio the job was given, over all
  succeeded jobs together and the same four numbers per job;
- the audio seconds given to every job, unsupported ones included.

The files are rewritten at the end of every run and resume (they summarise what the run
folder holds); their numbers are measurements, so two runs of the same jobs differ here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...core.canonical_json import dumps
from ...core.output import atomic_write_text
from ...core.share import fraction
from ...report.table import Table, to_markdown
from .derive import VERSION, transcript_name
from .jobs import META, Job

FORMAT = "speecheval.transcripts.engineering/1"
JSON_FILE = "engineering.json"
MD_FILE = "engineering.md"


def spread(values: Sequence[float]) -> dict[str, Any]:
    """How many, min, median, P90 and max of ``values`` (``None`` each when empty).

    >>> spread([4.0, 1.0, 3.0, 2.0])
    {'n': 4, 'min': 1.0, 'median': 2.5, 'p90': 3.7, 'max': 4.0}
    """
    if not values:
        return {"n": 0, "min": None, "median": None, "p90": None, "max": None}
    data = np.asarray(values, dtype=np.float64)
    return {"n": int(data.size), "min": float(data.min()), "median": float(np.median(data)),
            "p90": round(float(np.percentile(data, 90)), 12), "max": float(data.max())}


def characters(transcript: Path) -> int:
    """Characters of a derived transcript's words, whitespace left out."""
    rows = json.loads(transcript.read_text(encoding="utf-8"))
    return sum(len("".join(str(row["words"]).split())) for row in rows)


def facts(run_dir: Path, jobs: Sequence[Job]) -> dict[str, Any]:
    """``engineering.json`` of the run folder ``run_dir`` with jobs ``jobs``."""
    groups: dict[tuple[str, str], list[tuple[Job, dict[str, Any]]]] = {}
    for job in jobs:
        meta = json.loads((run_dir / job.raw / META).read_text(encoding="utf-8"))
        groups.setdefault((job.system, job.track), []).append((job, meta))
    found = []
    for (system, track), members in groups.items():
        status = {name: sum(1 for _, m in members if m["status"] == name)
                  for name in ("succeeded", "failed", "unsupported")}
        succeeded = [(job, m) for job, m in members if m["status"] == "succeeded"]
        measured = [m for _, m in members if m.get("peak_memory_bytes") is not None]
        densities, chars, chars_audio = [], 0, 0.0
        for job, meta in succeeded:
            transcript = run_dir / job.derived / transcript_name(VERSION)
            if transcript.is_file():
                count = characters(transcript)
                chars += count
                chars_audio += meta["audio_s"]
                if meta["audio_s"]:
                    densities.append(count / meta["audio_s"])
        found.append({
            "system": system, "track": track, "jobs": len(members), **status,
            "failure_rate": fraction(status["failed"], status["succeeded"] + status["failed"]),
            "audio_s": sum(m["audio_s"] for _, m in members),
            "rtf": spread([m["rtf"] for _, m in succeeded if m["rtf"] is not None]),
            "peak_memory_bytes": {
                **spread([m["peak_memory_bytes"] for m in measured]),
                "scopes": {scope: sum(1 for m in measured
                                      if m.get("peak_memory_scope") == scope)
                           for scope in ("job", "process")},
                "unscoped": sum(1 for m in measured if m.get("peak_memory_scope") is None)},
            "chars_per_second": {"characters": chars, "audio_s": chars_audio,
                                 "value": fraction(chars, chars_audio),
                                 "per_job": spread(densities)}})
    return {"format": FORMAT, "groups": found,
            "definitions": {
                "failure_rate": "failed jobs over succeeded + failed (unsupported jobs "
                                "never ran and are counted apart)",
                "rtf": "wall seconds over audio seconds of each succeeded job",
                "percentiles": "linear interpolation between order statistics (numpy "
                               "default)",
                "peak_memory_scope": "job: the call's own peak (a command's process, or "
                                     "this process's VmHWM reset through "
                                     "/proc/self/clear_refs before the call); process: the "
                                     "process's peak since it started",
                "chars_per_second": "characters of the derived transcript, whitespace left "
                                    "out, per second of the audio given"}}


def write(run_dir: Path, jobs: Sequence[Job]) -> None:
    """Write ``engineering.json`` and ``engineering.md`` into ``run_dir``."""
    found = facts(run_dir, jobs)
    atomic_write_text(run_dir / JSON_FILE, dumps(found))
    atomic_write_text(run_dir / MD_FILE, markdown(found))


def _number(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _mib(value: float | None) -> str:
    return "n/a" if value is None else f"{value / 2**20:.1f}"


def markdown(found: dict[str, Any]) -> str:
    """``engineering.md``: one row per system and track."""
    rows = []
    for g in found["groups"]:
        rtf, peak, density = g["rtf"], g["peak_memory_bytes"], g["chars_per_second"]
        rows.append([
            g["system"], g["track"], str(g["jobs"]), str(g["succeeded"]), str(g["failed"]),
            str(g["unsupported"]),
            "n/a" if g["failure_rate"] is None else f"{100 * g['failure_rate']:.2f}%",
            "/".join(_number(rtf[k]) for k in ("min", "median", "p90", "max")),
            "/".join(_mib(peak[k]) for k in ("min", "median", "p90", "max")),
            f"{peak['scopes']['job']} job, {peak['scopes']['process']} process",
            _number(density["value"], 2), f"{g['audio_s']:.1f}"])
    table = Table.of(["system", "track", "jobs", "succeeded", "failed", "unsupported",
                      "failure rate", "RTF min/median/P90/max",
                      "peak MiB min/median/P90/max", "peak scope", "chars/s", "audio s"],
                     rows)
    return ("# Engineering facts of the run\n\n"
            "Failure rate: failed over succeeded + failed (unsupported jobs never ran). "
            "RTF: wall over audio seconds of the succeeded jobs. Peak memory per job; "
            "'process' peaks include the process's earlier calls (its high-water mark "
            "could not be reset). chars/s: transcript characters (no whitespace) per "
            "second of audio, over all succeeded jobs.\n\n" + to_markdown(table))
