"""Gate every raw output of a run directory (``transcripts run`` layout), append-only.

Read (docs/transcripts-run.md): ``RUN/raw/<system>/<track-dir>/<sample>/r<k>/`` with
``meta.json`` and the answer ``response.<ext>`` (a chunked job: ``chunk-<i>/response.<ext>``
per chunk, with each chunk's ``start_s`` in ``meta.json``), ``RUN/input/<sample>.wav`` for
the duration and ``RUN/input/<sample>.json`` for the manifest's ``last_speech_s``, and
``RUN/lineage.jsonl`` for each raw artefact's identity. A folder holding no ``response.*``
but exactly one other file (another producer's layout) is read as that file.

Imported results (``RUN/imported/<digest>/raw/<key>/``, ``transcripts import``) are gated
beside the run's own, each verdict carrying ``imported``: the import's id,
``exact_input_match``, ``protocol_compatibility`` (with ``incompatibilities``),
``identity_confidence`` and ``track_use`` from its lineage record. Only an import whose
input is this run's own (``exact_input_match`` true) is held to the sample's length and
frozen last-speech boundary; any other was made from other audio, so it is gated on its
own length (``meta.json``'s ``audio_s``) without a boundary, and its coverage can be no
better than ``missing_evidence`` (verdict at best indeterminate). An incompatible one's
verdict is for the diagnostic track only (``track_use`` ``diagnostic``).

Not gated, with the reason: a job that did not succeed, the ``gold_diagnostic_window``
track (it supports no whole-recording completeness conclusion, spec), and a folder whose
answer cannot be found.

Verdicts are derived artefacts: they go to a new folder
``RUN/derived/gate/<gate version>-<digest>/`` whose digest covers everything the verdicts
depend on (gate and rules versions, raw, meta and audio bytes, the boundaries used). The
same inputs give the same folder, which is then left as it is; new rules or new
boundaries give a new folder; nothing is overwritten. Beside ``verdicts.jsonl`` the folder
holds ``gate.json`` (what was run). Each verdict is appended to the run's own
``RUN/lineage.jsonl`` as ``gate:<key>@<folder>``, parent ``raw:<key>`` (``<key>`` is
``<system>/<track-dir>/<sample>/r<k>``), so ``transcripts lineage RUN --artefact`` walks
from a verdict back to the input audio; records already there are not appended again.
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
from ...core.provenance import package_version
from .. import lineage
from .apply import read_raw_file, verdict_record
from .inputs import SampleBoundary, format_for, read_meta, read_samples
from .reading import RawReading, shifted
from .rules import RULES_VERSION, GateRules
from .verdict import GATE_VERSION, SampleFacts, boundary_problem

META = "meta.json"
GOLD_TRACK = "gold_diagnostic_window"


@dataclass(frozen=True)
class RawItem:
    """One repeat of one system on one sample in one track."""

    system: str
    track: str
    sample: str
    repeat: str
    folder: Path
    origin: str | None = None
    """The import's digest for ``RUN/imported/<digest>/raw/...``; ``None`` for the run's own."""

    @property
    def key(self) -> str:
        """``<system>/<track-dir>/<sample>/r<k>``, with ``imported:<digest>/`` before it for
        an imported folder: the raw artefact's lineage key."""
        key = "/".join(self.folder.parts[-4:])
        return key if self.origin is None else f"imported:{self.origin}/{key}"

    @property
    def raw_id(self) -> str:
        """The lineage id of the raw folder (``raw:<key>`` or ``imported:<digest>/<key>``)."""
        return f"raw:{self.key}" if self.origin is None else self.key


@dataclass(frozen=True)
class GatedRun:
    folder: Path
    created: bool
    records: tuple[dict[str, Any], ...]


def find_items(run: Path) -> list[RawItem]:
    """Every ``raw/<system>/<track-dir>/<sample>/r<k>/`` folder with a ``meta.json``, then
    every imported one (``imported/<digest>/raw/...``, ``transcripts import``)."""
    raw = run / "raw"
    if not raw.is_dir():
        raise InputError("not a run directory: it has no raw/ folder", path=run)
    items = []
    for meta in sorted(raw.glob(f"*/*/*/r*/{META}")):
        system, track_dir, sample, repeat = meta.parent.relative_to(raw).parts
        if system in lineage.COMMAND_FOLDERS:
            raise InputError(f"system {system!r} has the name of a command's folder under "
                             f"derived/ (reserved: {', '.join(lineage.COMMAND_FOLDERS)}); its "
                             "transcripts and those verdicts would share a folder",
                             path=meta.parent)
        items.append(RawItem(system, track_dir.replace(".", "/"), sample, repeat, meta.parent))
    imported = run / lineage.IMPORTED_FOLDER
    for meta in sorted(imported.glob(f"*/raw/*/*/*/r*/{META}")):
        digest, _, system, track_dir, sample, repeat = meta.parent.relative_to(imported).parts
        items.append(RawItem(system, track_dir.replace(".", "/"), sample, repeat, meta.parent,
                             digest))
    if not items:
        raise InputError("the run holds no raw/<system>/<track-dir>/<sample>/r<k>/meta.json",
                         path=run)
    return items


def read_item(item: RawItem, meta: dict[str, Any],
              run: Path) -> tuple[RawReading, dict[str, Any]] | str:
    """The reading of a succeeded job's answer and its description, or why there is none."""
    status = meta.get("status", "succeeded")
    if status != "succeeded":
        return f"the job {status}: {meta.get('reason')}"
    chunks = meta.get("chunks")
    if isinstance(chunks, list) and chunks:
        parts, files = [], {}
        for chunk in chunks:
            name = f"chunk-{int(chunk['index']):03d}"
            found = _answer_file(item.folder / name)
            if found is None:
                return f"{name} holds no response file"
            fmt = _format(found, None)
            if fmt is None:
                return f"{name}: no reader for {found.name}"
            reading, described = read_raw_file(found, fmt)
            parts.append((name, float(chunk["start_s"]), reading))
            files[str(found.relative_to(run))] = described
        return shifted(parts), {"path": str(item.folder.relative_to(run)), "chunks": files,
                                "sha256": sha256_bytes(dumps(files).encode())}
    found = _answer_file(item.folder)
    if found is None:
        return "no single response file beside meta.json"
    fmt = _format(found, meta.get("format"))
    if fmt is None:
        return f"no reader for {found.name}"
    reading, described = read_raw_file(found, fmt)
    return reading, {"path": str(found.relative_to(run)), **described}


def gate_run(run: Path, samples_path: Path | None, rules: GateRules,
             command: Sequence[str]) -> GatedRun:
    """Gate every raw output of ``run`` into a new derived folder (or find it made)."""
    boundaries = read_samples(samples_path) if samples_path is not None else {}
    items = find_items(run)
    known = {r["id"]: r for r in lineage.read_records(run)}
    samples = sorted({item.sample for item in items if item.track != GOLD_TRACK
                      and _on_this_input(item, known)})
    unknown = sorted(set(boundaries) - {item.sample for item in items})
    if unknown:
        raise InputError(f"the samples file names samples the run does not hold: "
                         f"{', '.join(unknown)}", path=samples_path or run)
    facts = {s: _sample_facts(run, s, boundaries.get(s), samples_path, rules)
             for s in samples}
    records: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    for item in items:
        where: dict[str, Any] = {"system": item.system, "track": item.track,
                                 "sample": item.sample, "repeat": item.repeat}
        if item.origin is not None:
            where["imported"] = _import_facts(known, item)
        meta_path = item.folder / META
        meta = read_meta(meta_path)
        read = (read_item(item, meta, run) if item.track != GOLD_TRACK else
                "the gold diagnostic window supports no whole-recording completeness "
                "conclusion")
        sample = facts.get(item.sample) if _on_this_input(item, known) else _older_input(meta)
        if isinstance(read, str) or sample is None:
            reason = read if isinstance(read, str) else (
                "imported: its input is not known to be this run's and its meta.json gives "
                "no audio_s, so the audio's length is unknown")
            records.append({**where, "kind": "transcripts.gate_not_run", "reason": reason})
            continue
        record = verdict_record(read[0], read[1], sample[0], meta,
                                {"path": str(meta_path.relative_to(run)),
                                 "sha256": sha256_file(meta_path)}, rules)
        records.append({**where, **record})
        inherited = lineage.derived_from(known, item.raw_id)
        entries.append({
            "id": f"gate:{item.key}", "kind": "gate_verdict", "line": len(records),
            **inherited,
            "raw_sha256": inherited["raw_sha256"] or read[1]["sha256"],
            "input_sha256": inherited["input_sha256"] or sample[1],
            "normalizer_version": None, "scorer_version": f"{GATE_VERSION}/{RULES_VERSION}",
            "meta_sha256": record["meta"]["sha256"], "verdict": record["verdict"],
            **({"imported": where["imported"]} if item.origin is not None else {})})
    used = {s: {"duration_s": f.duration_s, "last_speech_s": f.last_speech_s,
                "tolerance_s": f.tolerance_s, "boundary_source": f.boundary_source,
                "audio_sha256": audio_sha} for s, (f, audio_sha) in facts.items()}
    digest = sha256_bytes(dumps({"gate": GATE_VERSION, "rules": rules.identity(),
                                 "samples": used, "records": records}).encode())[:12]
    target = run / "derived" / lineage.GATE_FOLDER / f"{GATE_VERSION}-{digest}"
    verdicts = dumps_lines(records)
    relative = str(target.relative_to(run) / "verdicts.jsonl")
    for entry in entries:
        entry.update(id=f"{entry['id']}@{target.name}", path=f"{relative}#{entry.pop('line')}",
                     sha256=sha256_bytes(verdicts.encode()))
    created = not target.exists()
    if created:
        with new_output_dir(target) as staging:
            (staging / "verdicts.jsonl").write_text(verdicts, encoding="utf-8")
            (staging / "gate.json").write_text(dumps({
                "kind": "transcripts.gate_run", "gate_version": GATE_VERSION,
                "speecheval": package_version("speecheval"), "rules": rules.identity(),
                "samples": used, "command": list(command),
                "samples_file": None if samples_path is None else {
                    "path": str(samples_path), "sha256": sha256_file(samples_path)}}),
                encoding="utf-8")
    lineage.append_missing(run, entries)
    return GatedRun(target, created, tuple(records))


def _import_facts(known: dict[str, dict[str, Any]], item: RawItem) -> dict[str, Any]:
    """How far an imported result can be trusted, from its ``imported_raw`` record (a
    folder without one is taken as the least: unknown input, incompatible)."""
    record = known.get(item.raw_id)
    if record is None:
        return {"id": item.raw_id, "exact_input_match": None,
                "protocol_compatibility": "incompatible",
                "incompatibilities": ["no imported_raw record in the run's lineage"],
                "identity_confidence": "none", "track_use": "diagnostic"}
    return {"id": item.raw_id, **{key: record.get(key) for key in lineage.IMPORT_KEYS}}


def _on_this_input(item: RawItem, known: dict[str, dict[str, Any]]) -> bool:
    """Whether the job's input is this run's input of the sample: always for the run's
    own jobs, for an imported one only with ``exact_input_match`` true."""
    return item.origin is None or known.get(item.raw_id, {}).get("exact_input_match") is True


def _older_input(meta: dict[str, Any]) -> tuple[SampleFacts, str | None] | None:
    """The facts of an imported job on other (or unknown) audio: its own length from its
    ``meta.json``, and no boundary: this run's frozen boundary belongs to other audio, so
    coverage lacks evidence and the verdict can be no better than indeterminate."""
    audio_s = meta.get("audio_s")
    if isinstance(audio_s, bool) or not isinstance(audio_s, int | float) or audio_s <= 0:
        return None
    return SampleFacts(float(audio_s), None), None


def _format(path: Path, declared: Any) -> str | None:
    """The answer's format, ``None`` when no reader knows it (a system's own format is a
    fact about the job, not bad input to the gate)."""
    try:
        return format_for(path, None if declared is None else str(declared))
    except InputError:
        return None


def _answer_file(folder: Path) -> Path | None:
    """The answer of a raw folder: its one ``response.*`` file, else its one file."""
    if not folder.is_dir():
        return None
    files = sorted(p for p in folder.iterdir()
                   if p.is_file() and p.name != META and not p.name.startswith("."))
    responses = [p for p in files if p.name.startswith("response.")]
    found = responses if responses else files
    return found[0] if len(found) == 1 else None


def _sample_facts(run: Path, sample: str, boundary: SampleBoundary | None,
                  samples_path: Path | None, rules: GateRules) -> tuple[SampleFacts, str | None]:
    """The sample's duration (its input WAV, else the samples file) and boundary (the
    samples file, else the run manifest's ``last_speech_s`` in ``input/<sample>.json``);
    a boundary past the end of the audio is an InputError naming the sample."""
    found, audio_sha = _read_sample_facts(run, sample, boundary, samples_path)
    problem = boundary_problem(found, rules)
    if problem is not None:
        where = (samples_path if boundary is not None and samples_path is not None
                 else run / "input" / f"{sample}.json")
        raise InputError(problem, path=where, sample_id=sample)
    return found, audio_sha


def _read_sample_facts(run: Path, sample: str, boundary: SampleBoundary | None,
                       samples_path: Path | None) -> tuple[SampleFacts, str | None]:
    """:func:`_sample_facts` as read, unchecked."""
    wav = run / "input" / f"{sample}.wav"
    if wav.is_file():
        info = audio_info(wav, sample_id=sample)
        duration, audio_sha = info.n_samples / info.rate, sha256_file(wav)
    elif boundary is not None and boundary.duration_s is not None:
        duration, audio_sha = boundary.duration_s, None
    else:
        raise InputError(f"no input/{sample}.wav in the run and no duration_s in a samples "
                         f"file", path=samples_path or run, sample_id=sample)
    if boundary is not None:
        return SampleFacts(duration, boundary.last_speech_s, boundary.tolerance_s,
                           boundary.boundary_source), audio_sha
    identity = run / "input" / f"{sample}.json"
    last = read_meta(identity).get("last_speech_s") if identity.is_file() else None
    if last is not None and (isinstance(last, bool) or not isinstance(last, int | float)):
        raise InputError(f"last_speech_s must be a number, got {last!r}", path=identity)
    return SampleFacts(duration, None if last is None else float(last), None,
                       None if last is None else "run manifest (input identity)"), audio_sha
