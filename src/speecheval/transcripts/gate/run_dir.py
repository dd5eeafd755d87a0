"""Gate every raw output of a run directory (``transcripts run`` layout), append-only.

Layout read: ``RUN/raw/<system>/<track>/<sample>/r<k>/`` holding the raw response file and
``meta.json`` (a track may itself contain ``/``, as ``production_complete_file/chunked``),
and ``RUN/input/<sample>.wav`` for each sample's duration. The raw file is the one file
beside ``meta.json``, or the one ``meta.json`` names under ``raw_file``; a folder with
several and no name is recorded as not gated, with the reason.

Verdicts are a derived artefact: they go to a new folder
``RUN/derived/gate/<gate version>-<digest>/`` (``verdicts.jsonl``, ``lineage.json``),
whose digest is taken over everything the verdicts depend on (gate and rules versions,
the raw, meta, audio and samples bytes). The same inputs give the same folder, which is
then left as it is; new rules or a new samples file give a new folder; nothing is
overwritten.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.audio import audio_info
from ...core.canonical_json import dumps, dumps_lines
from ...core.errors import InputError
from ...core.hashing import sha256_bytes, sha256_file
from ...core.output import new_output_dir
from .apply import gate_file
from .inputs import SampleBoundary, format_for, read_meta, read_samples
from .rules import GateRules
from .verdict import GATE_VERSION, SampleFacts

META = "meta.json"


@dataclass(frozen=True)
class RawItem:
    """One repeat of one system on one sample in one track."""

    system: str
    track: str
    sample: str
    repeat: str
    folder: Path


@dataclass(frozen=True)
class GatedRun:
    folder: Path
    created: bool
    records: tuple[dict[str, Any], ...]


def find_items(run: Path) -> list[RawItem]:
    """Every ``raw/<system>/<track...>/<sample>/r<k>/`` folder with a ``meta.json``."""
    raw = run / "raw"
    if not raw.is_dir():
        raise InputError("not a run directory: it has no raw/ folder", path=run)
    items = []
    for meta in sorted(raw.rglob(META)):
        parts = meta.parent.relative_to(raw).parts
        if len(parts) < 4 or not parts[-1].startswith("r"):
            raise InputError("expected raw/<system>/<track>/<sample>/r<k>/meta.json",
                             path=meta)
        items.append(RawItem(parts[0], "/".join(parts[1:-2]), parts[-2], parts[-1],
                             meta.parent))
    if not items:
        raise InputError("the run holds no raw/<system>/<track>/<sample>/r<k>/meta.json",
                         path=run)
    return items


def gate_run(run: Path, samples_path: Path, rules: GateRules,
             command: Sequence[str]) -> GatedRun:
    """Gate every raw output of ``run`` into a new derived folder (or find it made)."""
    boundaries = read_samples(samples_path)
    items = find_items(run)
    facts = {sample: _sample_facts(run, sample, boundaries.get(sample), samples_path)
             for sample in sorted({item.sample for item in items})}
    records = []
    inputs: list[dict[str, Any]] = []
    for item in items:
        where = {"system": item.system, "track": item.track, "sample": item.sample,
                 "repeat": item.repeat}
        meta_path = item.folder / META
        meta = read_meta(meta_path)
        raw_path, why_not = raw_file_of(item.folder, meta)
        if raw_path is None:
            records.append({**where, "kind": "transcripts.gate_not_run", "reason": why_not})
            continue
        fmt = format_for(raw_path, meta.get("format"))
        record = gate_file(raw_path, fmt, facts[item.sample][0], meta_path, rules,
                           shown_as=str(raw_path.relative_to(run)))
        record["meta"]["path"] = str(meta_path.relative_to(run))
        records.append({**where, **record})
        inputs.append({**where, "raw_sha256": record["raw"]["sha256"],
                       "meta_sha256": record["meta"]["sha256"]})
    lineage = {
        "kind": "transcripts.gate_lineage", "artefact": "gate verdicts",
        "gate_version": GATE_VERSION, "rules": rules.identity(),
        "samples_file": {"path": str(samples_path), "sha256": sha256_file(samples_path)},
        "audio": {sample: audio_sha for sample, (_, audio_sha) in facts.items()},
        "parents": inputs, "command": list(command),
    }
    digest = sha256_bytes(dumps({k: v for k, v in lineage.items()
                                 if k not in ("command", "samples_file")} | {
        "samples": {s: vars(boundaries.get(s)) if boundaries.get(s) else None
                    for s in facts}}).encode())[:12]
    target = run / "derived" / "gate" / f"{GATE_VERSION}-{digest}"
    if target.exists():
        return GatedRun(target, False, tuple(records))
    with new_output_dir(target) as staging:
        (staging / "verdicts.jsonl").write_text(dumps_lines(records), encoding="utf-8")
        (staging / "lineage.json").write_text(dumps(lineage), encoding="utf-8")
    return GatedRun(target, True, tuple(records))


def _sample_facts(run: Path, sample: str, boundary: SampleBoundary | None,
                  samples_path: Path) -> tuple[SampleFacts, str | None]:
    """The sample's duration (from its input WAV, else the samples file) and boundary."""
    wav = run / "input" / f"{sample}.wav"
    if wav.is_file():
        info = audio_info(wav, sample_id=sample)
        duration, audio_sha = info.n_samples / info.rate, sha256_file(wav)
    elif boundary is not None and boundary.duration_s is not None:
        duration, audio_sha = boundary.duration_s, None
    else:
        raise InputError(f"no input/{sample}.wav in the run and no duration_s in the samples "
                         f"file", path=samples_path, sample_id=sample)
    if duration <= 0:
        raise InputError("the duration must be positive", path=samples_path, sample_id=sample)
    if boundary is None:
        return SampleFacts(duration, None), audio_sha
    return SampleFacts(duration, boundary.last_speech_s, boundary.tolerance_s,
                       boundary.boundary_source), audio_sha


def raw_file_of(folder: Path, meta: dict[str, Any]) -> tuple[Path | None, str | None]:
    """The raw output of a repeat folder, or why there is no single one."""
    named = meta.get("raw_file")
    if isinstance(named, str):
        path = folder / named
        if path.parent != folder or not path.is_file():
            raise InputError(f"raw_file {named!r} is not a file in this folder",
                             path=folder / META)
        return path, None
    found = sorted(p for p in folder.iterdir()
                   if p.is_file() and p.name != META and not p.name.startswith("."))
    if len(found) == 1:
        return found[0], None
    return None, (f"{len(found)} raw files beside meta.json and none named by raw_file"
                  if found else "no raw file beside meta.json")
