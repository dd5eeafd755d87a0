"""Drive a run: inputs once, every missing job, every missing derived transcript, lineage.

A new run checks everything it can before it writes anything (the manifest, the systems'
settings and keys, every source file's header, a new ``--out``), then writes ``run.json``
and works through the jobs. ``--resume`` reads ``run.json``, refuses a manifest or a
system whose identity changed since, and does only what is missing: inputs not decoded,
jobs without a raw folder, transcripts of the current derivation version. A system is
built only if one of its jobs still has to run, so deriving a new rule version from saved
raw answers calls no system and needs no key.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ... import __version__
from ...core.canonical_json import dumps
from ...core.errors import InputError, WorkerDied
from ...core.executor import Executor, LocalExecutor
from ...core.hashing import sha256_file
from ...core.output import (
    atomic_write_bytes,
    atomic_write_text,
    check_new_output_dir,
    new_run_dir,
)
from ...core.progress import progress
from ...core.redact import run_scrubber
from .. import lineage
from . import engineering, input_audio
from .chunker import ChunkerSettings, plan
from .derive import VERSION, WORDS_VERSION, derive, derive_words, transcript_name
from .jobs import META, Job, raw_sha256, run_job, write_failed, write_unsupported
from .manifest import (
    CommandSystem,
    OpenAICompatibleSystem,
    RunManifest,
    SampleSpec,
    load_run_manifest,
)
from .systems.base import System
from .systems.registry import build
from .tracks import CHUNKED, GOLD, NATIVE, TRACKS

RUN_FORMAT = "speecheval.transcripts.run/1"
RUN_FILE = "run.json"


@dataclass(frozen=True)
class Request:
    """What to run: systems by name, tracks, repeats, and the chunker's settings."""

    manifest: Path
    systems: tuple[str, ...]
    tracks: tuple[str, ...]
    repeats: int
    chunker: ChunkerSettings = ChunkerSettings()


@dataclass
class Outcome:
    """What a run (or resume) did and what the run directory now holds."""

    run_dir: Path
    called: int = 0
    derived: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    failed: list[str] = field(default_factory=list)


def start(request: Request, out: Path, executor: Executor | None = None) -> Outcome:
    """Begin a new run in ``out`` (which must not exist) and run it to the end, the
    system calls on ``executor`` (default: one after another in this process)."""
    manifest = load_run_manifest(request.manifest)
    for track in request.tracks:
        if track not in TRACKS:
            raise InputError(f"--track {track}: unknown; the tracks are {', '.join(TRACKS)}")
    specs = {name: manifest.system(name) for name in request.systems}
    for sample in manifest.samples:
        duration = input_audio.check_source(sample.audio, sample.id)
        if sample.gold_window is not None and sample.gold_window.end_s > duration:
            raise InputError(f"gold_window ends at {sample.gold_window.end_s:g} s, after the "
                             f"audio's end at {duration:g} s ({sample.audio})",
                             path=manifest.path, sample_id=sample.id)
    systems = {name: build(name, spec, manifest.path.parent) for name, spec in specs.items()}
    check_new_output_dir(out)
    run = {
        "format": RUN_FORMAT, "speecheval": __version__,
        "manifest": {"path": str(manifest.path.resolve()),
                     "sha256": sha256_file(manifest.path)},
        "systems": {name: {"adapter": s.adapter, "config": s.config(),
                           "identity": s.identity(), "model_revision": s.model_revision()}
                    for name, s in systems.items()},
        "tracks": list(dict.fromkeys(request.tracks)), "repeats": request.repeats,
        "seeds": list(range(request.repeats)),
        "samples": [s.id for s in manifest.samples],
        "settings": {"input_adapter": input_audio.settings(),
                     "chunker": request.chunker.identity(),
                     "gold_window": "the sample's gold_window, cut from the decoded PCM to "
                                    "the nearest samples; times on the crop's timeline"},
    }
    with new_run_dir(out) as folder:
        atomic_write_text(folder / RUN_FILE, dumps(run))
        outcome = _execute(folder, run, manifest, request.chunker, systems.get, executor)
    outcome.run_dir = out  # the folder is ``out`` now, also when it replaced an old run
    return outcome


def resume(run_dir: Path, executor: Executor | None = None) -> Outcome:
    """Finish what ``run_dir`` is missing (see the module docstring), the system calls on
    ``executor`` (default: one after another in this process)."""
    path = run_dir / RUN_FILE
    if not path.is_file():
        raise InputError("not a run directory: it has no run.json", path=run_dir)
    run = json.loads(path.read_text(encoding="utf-8"))
    manifest_path = Path(run["manifest"]["path"])
    if not manifest_path.is_file() or sha256_file(manifest_path) != run["manifest"]["sha256"]:
        raise InputError("the run's manifest is missing or changed since the run started "
                         "(its SHA-256 differs); start a new run", path=manifest_path)
    manifest = load_run_manifest(manifest_path)
    chunker = ChunkerSettings(**{k: v for k, v in run["settings"]["chunker"].items()
                                 if k in ChunkerSettings.__dataclass_fields__})
    built: dict[str, System] = {}

    def system(name: str) -> System:
        if name not in built:
            made = build(name, manifest.system(name), manifest.path.parent)
            recorded = run["systems"][name]["identity"]
            if json.loads(dumps(made.identity())) != recorded:
                raise InputError(f"system {name}'s identity changed since the run started "
                                 f"(model files, settings or package versions); start a "
                                 f"new run", path=run_dir / RUN_FILE)
            built[name] = made
        return built[name]

    return _execute(run_dir, run, manifest, chunker, system, executor)


def _execute(run_dir: Path, run: dict[str, Any], manifest: RunManifest,
             chunker: ChunkerSettings, system: Callable[[str], System | None],
             executor: Executor | None) -> Outcome:
    outcome = Outcome(run_dir)
    tracks = run["tracks"]
    samples = {s.id: s for s in manifest.samples}
    jobs = [Job(name, track, sample_id, repeat, seed)
            for sample_id in run["samples"] for name in run["systems"] for track in tracks
            for repeat, seed in enumerate(run["seeds"], start=1)]
    pending = [job for job in jobs if not (run_dir / job.raw).exists()]
    # here, in job order: the inputs decoded, the unsupported jobs recorded, the calls
    # planned; then the calls on the executor, each raw folder recorded in job order
    calls = {job: call for job in pending
             if (call := _plan_call(run_dir, manifest, system, job, samples[job.sample],
                                    chunker)) is not None}
    with progress(len(pending), "transcribing", unit="job") as advance:
        advance(len(pending) - len(calls))
        called = (executor or LocalExecutor(1)).results(_call, list(calls.values()),
                                                        advance=advance)
        # every job in job order, not only the pending ones: a raw folder written without
        # its record (a run killed between the two, or a call left running by a killed
        # driver) is recorded at its place, so a resumed run's lineage is an unbroken one's
        for job in jobs:
            if job in calls:
                result = next(called)
                if isinstance(result.error, WorkerDied):
                    write_failed(job, str(result.error), run_dir / job.raw,
                                 calls[job].audio_s)
                else:
                    result.get()
            _ensure_raw_record(run_dir, run, job, _meta(run_dir, job), chunker)
    outcome.called = len(pending)
    for job in jobs:
        meta = _meta(run_dir, job)
        outcome.statuses[meta["status"]] += 1
        if meta["status"] == "failed":
            outcome.failed.append(f"{job.key}: {meta['reason']}")
        elif meta["status"] == "succeeded":
            outcome.derived += _derive(run_dir, run, job, meta, chunker)
    engineering.write(run_dir, jobs)
    return outcome


def _meta(run_dir: Path, job: Job) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads((run_dir / job.raw / META).read_text(encoding="utf-8"))
    return meta


def _known(run_dir: Path) -> set[str]:
    return {r["id"] for r in lineage.read_records(run_dir)}


def _input(run_dir: Path, sample: SampleSpec) -> tuple[input_audio.Pcm, dict[str, Any]]:
    """The decoded PCM of ``sample`` and its identity, decoding it the first time."""
    wav = run_dir / "input" / f"{sample.id}.wav"
    identity_path = wav.with_suffix(".json")
    if identity_path.is_file():
        identity: dict[str, Any] = json.loads(identity_path.read_text(encoding="utf-8"))
    else:
        staging = wav.with_name(f".{wav.name}.partial")
        identity = input_audio.decode(sample.audio, sample.id, staging)
        staging.rename(wav)
        identity["derived"]["file"] = wav.name
        identity["last_speech_s"] = sample.last_speech_s
        atomic_write_text(identity_path, dumps(identity))
    record_id = f"input:{sample.id}"
    if record_id not in _known(run_dir):
        lineage.append_record(run_dir, {
            "id": record_id, "kind": "input", "path": f"input/{wav.name}",
            "sha256": identity["derived"]["sha256"], "parent": None,
            "input_sha256": identity["derived"]["sha256"],
            "request_config": identity["settings"], "model_revision": None,
            "raw_sha256": None, "normalizer_version": None, "scorer_version": None,
            "source_sha256": identity["source"]["sha256"],
            **({"audit": sample.audit_dict()} if sample.audit_declared() else {})})
    return input_audio.load(wav), identity


def _gold(run_dir: Path, sample: SampleSpec, pcm: input_audio.Pcm,
          identity: dict[str, Any]) -> tuple[input_audio.Pcm, dict[str, Any]]:
    """The gold window crop of ``sample`` and its identity, cutting it the first time."""
    assert sample.gold_window is not None
    wav = run_dir / "input" / f"{sample.id}.gold.wav"
    identity_path = wav.with_suffix(".json")
    if identity_path.is_file():
        crop_identity: dict[str, Any] = json.loads(identity_path.read_text(encoding="utf-8"))
        crop = input_audio.load(wav)
    else:
        window = sample.gold_window
        crop, crop_identity = input_audio.write_crop(
            pcm, window.start_s, window.end_s, wav, identity["derived"]["sha256"])
        atomic_write_text(identity_path, dumps(crop_identity))
    record_id = f"input:{sample.id}/gold"
    if record_id not in _known(run_dir):
        sha = crop_identity["derived"]["sha256"]
        lineage.append_record(run_dir, {
            "id": record_id, "kind": "input_crop", "path": f"input/{wav.name}",
            "sha256": sha, "parent": f"input:{sample.id}", "input_sha256": sha,
            "request_config": {k: crop_identity[k] for k in
                               ("start_s", "end_s", "start_sample", "end_sample")},
            "model_revision": None, "raw_sha256": None, "normalizer_version": None,
            "scorer_version": None})
    return crop, crop_identity


def _chunk_plan(run_dir: Path, sample_id: str, pcm: input_audio.Pcm,
                chunker: ChunkerSettings) -> list[tuple[int, int]]:
    """The chunk plan of a sample, computed and frozen in a file the first time."""
    path = run_dir / "input" / f"{sample_id}.chunks.json"
    if path.is_file():
        return [(a, b) for a, b in json.loads(path.read_text(encoding="utf-8"))["chunks"]]
    chunks = plan(pcm, chunker)
    atomic_write_text(path, dumps({"chunker": chunker.identity(), "rate": input_audio.RATE,
                                   "chunks": chunks}))
    return chunks


@dataclass(frozen=True)
class _Call:
    """One system call, a work item of the executor: how to build the system (in the
    worker, which keeps it for its later calls), the job, the decoded input or gold crop
    it hears (a path: the worker reads it), its offset on the sample's timeline, its
    chunk plan and its raw folder (which the worker publishes)."""

    system: Callable[[], System]
    system_key: str
    job: Job
    audio: Path
    offset_s: float
    chunks: list[tuple[int, int]] | None
    target: Path
    key_variables: tuple[str, ...]
    """The variables holding the run's secrets, scrubbed from every answer (see
    :func:`key_variables`)."""
    audio_s: float
    """The length of the audio the job hears (recorded also if its worker dies)."""
    overlap: int = 0
    """Samples each chunk after the first is decoded before its cut (the chunker's
    ``overlap_s``)."""


_built: dict[str, System] = {}
"""The systems this process has built for its calls, by :attr:`_Call.system_key`."""


def _call(call: _Call) -> None:
    """Run one call (in a worker process, or here for one job at a time); a job whose
    raw folder exists is finished (after a worker died, a neighbour that had published
    its folder may be given again)."""
    if call.target.exists():
        return
    if call.system_key not in _built:
        _built[call.system_key] = call.system()
    run_job(_built[call.system_key], call.job, input_audio.load(call.audio), call.offset_s,
            call.chunks, call.target, run_scrubber(env=call.key_variables), call.overlap)


def key_variables(manifest: RunManifest) -> tuple[str, ...]:
    """Every environment variable a system of the manifest is given: the key variable of
    an ``openai-compatible`` system and the ``env`` of a ``command`` system. Their values
    are the run's secrets, whichever system's answer quotes them."""
    names: set[str] = set()
    for spec in manifest.systems.values():
        if isinstance(spec, OpenAICompatibleSystem):
            names.add(spec.api_key_env)
        elif isinstance(spec, CommandSystem):
            names.update(spec.env)
    return tuple(sorted(names))


def _plan_call(run_dir: Path, manifest: RunManifest, system: Callable[[str], System | None],
               job: Job, sample: SampleSpec, chunker: ChunkerSettings) -> _Call | None:
    """The call of ``job``, after decoding what it hears; None when the track does not
    apply (its raw folder then records why)."""
    pcm, identity = _input(run_dir, sample)
    target = run_dir / job.raw
    audio = run_dir / "input" / f"{sample.id}.wav"
    offset = 0.0
    chunks = None
    found = system(job.system)  # built (and checked) here, once, before any call
    assert found is not None
    audio_s = pcm.duration_s
    if job.track == GOLD:
        if sample.gold_window is None:
            write_unsupported(job, "the sample has no gold_window", target, audio_s)
            return None
        crop, _ = _gold(run_dir, sample, pcm, identity)
        audio = run_dir / "input" / f"{sample.id}.gold.wav"
        offset = sample.gold_window.start_s
        audio_s = crop.duration_s
    elif job.track == NATIVE:
        limit = found.native_context_s
        if limit is None:
            write_unsupported(job, f"system {job.system} declares no native context "
                                   "(native_context_s)", target, audio_s)
            return None
        if pcm.duration_s > limit:
            write_unsupported(job, f"the sample lasts {pcm.duration_s:g} s, longer than the "
                                   f"native context of {limit:g} s", target, audio_s)
            return None
    elif job.track == CHUNKED:
        chunks = _chunk_plan(run_dir, sample.id, pcm, chunker)
    spec = manifest.system(job.system)
    return _Call(partial(build, job.system, spec, manifest.path.parent),
                 dumps({"name": job.system, "spec": spec.model_dump(mode="json"),
                        "folder": str(manifest.path.parent)}),
                 job, audio, offset, chunks, target, key_variables(manifest), audio_s,
                 round(chunker.overlap_s * input_audio.RATE))


def _input_id(job: Job) -> str:
    return f"input:{job.sample}/gold" if job.track == GOLD else f"input:{job.sample}"


def _ensure_raw_record(run_dir: Path, run: dict[str, Any], job: Job, meta: dict[str, Any],
                       chunker: ChunkerSettings) -> None:
    """Record the raw folder of ``job`` in the lineage if it is not yet (a crash between
    the folder and its record is mended here)."""
    record_id = f"raw:{job.key}"
    known = _known(run_dir)
    if record_id in known:
        return
    parent: str | None = _input_id(job)
    if parent not in known:  # an unsupported job never needed its input
        parent = f"input:{job.sample}" if f"input:{job.sample}" in known else None
    input_sha = None
    if parent is not None:
        input_sha = next(r["input_sha256"] for r in lineage.read_records(run_dir)
                         if r["id"] == parent)
    system = run["systems"][job.system]
    config: dict[str, Any] = {"system": system["config"], "track": job.track,
                              "seed": job.seed}
    if job.track == CHUNKED:
        config["chunker"] = chunker.identity()
        config["chunks_sha256"] = sha256_file(run_dir / "input" / f"{job.sample}.chunks.json")
    lineage.append_record(run_dir, {
        "id": record_id, "kind": "raw", "path": str(job.raw),
        "sha256": raw_sha256(meta), "parent": parent,
        "input_sha256": input_sha, "request_config": config,
        "model_revision": system["model_revision"], "raw_sha256": raw_sha256(meta),
        "normalizer_version": None, "scorer_version": None, "status": meta["status"]})


def _derive(run_dir: Path, run: dict[str, Any], job: Job, meta: dict[str, Any],
            chunker: ChunkerSettings) -> int:
    """Derive the transcript of the current version if missing, and its word-level form
    where the raw answer gives word times; how many files were written."""
    adapter = run["systems"][job.system]["adapter"]
    written = _derived_file(run_dir, job, VERSION, "transcript", lambda: derive(
        run_dir / job.raw, adapter, job.sample, meta, chunker.cut_margin_s))
    return written + _derived_file(run_dir, job, WORDS_VERSION, "words", lambda: derive_words(
        run_dir / job.raw, adapter, job.sample, meta, chunker.cut_margin_s))


def _derived_file(run_dir: Path, job: Job, version: str, kind: str,
                  make: Callable[[], tuple[str, dict[str, Any]] | None]) -> int:
    """Write and record ``<kind>:<key>@<version>`` if missing (``make`` gives its text and
    lineage facts, ``None`` when the raw answer holds nothing of that kind); 1 if written."""
    target = run_dir / job.derived / transcript_name(version, kind)
    record_id = f"{kind}:{job.key}@{version}"
    if target.exists() and record_id in _known(run_dir):
        return 0
    made = make()
    if made is None:
        return 0
    text, facts = made
    if not target.exists():
        atomic_write_bytes(target, text.encode("utf-8"))
    raw_record = next(r for r in lineage.read_records(run_dir) if r["id"] == f"raw:{job.key}")
    lineage.append_record(run_dir, {
        "id": record_id, "kind": kind, "path": str(job.derived / target.name),
        "sha256": sha256_file(target), "parent": raw_record["id"],
        "input_sha256": raw_record["input_sha256"],
        "request_config": raw_record["request_config"],
        "model_revision": raw_record["model_revision"],
        "raw_sha256": raw_record["raw_sha256"], "normalizer_version": version,
        "scorer_version": None, **({"derivation": facts} if facts else {})})
    return 1
