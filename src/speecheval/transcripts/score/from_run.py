"""``transcripts score --run RUN``: a run directory's transcripts scored with no score manifest.

A ``transcripts run`` directory already knows everything a score manifest says: the run
manifest names each sample's scenario, source and reference files (docs/transcripts-run.md),
``run.json`` the systems, tracks and repeats, each job's ``meta.json`` whether it
succeeded, failed or did not apply, and the lineage where its derived transcript (and,
where the raw answer had word times, its word-level transcript) is. This module writes
the score manifest of each (track, system) from them and scores it with the ordinary
``transcripts score`` (:func:`.run.score_into`), so the numbers are exactly those a
hand-written manifest would give; tracks are scored apart, never pooled.

Everything is checked before anything is written (a missing run, an unknown track, a
sample without scenario, source or reference, a job not run or not derived: exit 2,
named). The scores are derived artefacts of the run, like the gate's verdicts:
``RUN/derived/score/<version>-<digest>/`` (the digest covers the generated manifests and
the SHA-256 of every file they name), holding one folder per track and system (the
ordinary score outputs and the ``manifest.json`` scored), ``scores.jsonl`` and
``report.md`` (one row per scored run: track, system, sample, repeat, its numbers, its
rule versions and its lineage id) and ``score.json`` (what was run). Each row is appended
to ``RUN/lineage.jsonl`` as ``score:<key>@<folder>`` whose parent is the transcript it
scored (the raw folder for a failed job), so ``transcripts lineage RUN --artefact`` walks
from a number back to the input audio. The same inputs give the same folder, left as it
is; only missing records are appended.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import __version__
from ...core.canonical_json import dumps, dumps_lines
from ...core.errors import InputError
from ...core.executor import Executor
from ...core.hashing import sha256_bytes, sha256_file
from ...core.output import atomic_write_text, new_output_dir
from ...report.numbers import percent
from ...report.table import Table, to_markdown
from .. import lineage
from ..run.derive import VERSION, WORDS_VERSION, transcript_name
from ..run.manifest import RunManifest, load_run_manifest
from ..run.manifest import SampleSpec as RunSample
from ..run.tracks import GOLD, track_dir
from ..text.normalize import VERSION as NORMALIZER_VERSION
from .chunk_regions import REGIONS
from .manifest import FORMAT, NON_SPEECH_KINDS
from .run import score_into

SCORE_VERSION = "transcripts-score-1"
"""The version of the scoring rules a ``score:`` record names (with the normalizer's)."""
GOLD_NOT_SCORED = ("its transcripts are on the gold window's timeline and the references "
                   "are of the whole sample")


@dataclass(frozen=True)
class Plan:
    """One (track, system) to score: the score manifest written for it, and per run the
    lineage ids of what it scores (``transcript``/``words``: ``None`` for a failed job)."""

    track: str
    system: str
    manifest: dict[str, Any]
    artefacts: dict[tuple[str, int], tuple[str | None, str | None]]

    @property
    def folder(self) -> str:
        """Its folder inside the score folder."""
        return f"{track_dir(self.track)}/{self.system}"


@dataclass(frozen=True)
class ScoredRun:
    """What ``score --run`` did: the score folder, whether it was made now, the lines to
    print and how many lineage records were appended."""

    folder: Path
    created: bool
    lines: list[str]
    appended: int


def score_run_dir(run_dir: Path, tracks: Sequence[str], command: Sequence[str],
                  executor: Executor | None = None) -> ScoredRun:
    """Score the run ``run_dir`` (``tracks``: those to score, empty for all but the gold
    window) into its derived score folder and append the ``score:`` records."""
    run, manifest = _load_run(run_dir)
    chosen = _tracks(run, tracks, run_dir)
    _check_samples(manifest, run["samples"])
    known = {r["id"]: r for r in lineage.read_records(run_dir)}
    plans: list[Plan] = []
    not_scored = [{"track": GOLD, "reason": GOLD_NOT_SCORED}] if (
        GOLD in run["tracks"] and not tracks) else []
    for track in chosen:
        for system in run["systems"]:
            plan, notes = _plan(run_dir, run, manifest, known, track, system)
            not_scored += notes
            if plan is not None:
                plans.append(plan)
    if not plans:
        raise InputError("nothing to score: no job of the chosen tracks succeeded or failed "
                         "(every one is unsupported)", path=run_dir)
    digest = sha256_bytes(dumps({"version": SCORE_VERSION, "normalizer": NORMALIZER_VERSION,
                                 "speecheval": __version__,
                                 "plans": [_digest_view(p) for p in plans]}).encode())[:12]
    target = run_dir / "derived" / lineage.SCORE_FOLDER / f"{SCORE_VERSION}-{digest}"
    created = not target.exists()
    if created:
        with new_output_dir(target) as staging:
            _write(staging, target.name, run_dir, plans, not_scored, command, executor)
    rows = _rows(target, target.name, plans)
    records = [_record(known, run_dir, target, row) for row in rows]
    appended = lineage.append_missing(run_dir, records)
    lines = [f"{row['track']} {row['system']} {row['sample']} r{row['repeat']}: "
             f"{row['rate_name']} {percent(row['rate'])}" for row in rows]
    lines += [f"not scored: {note['track']}" + (f" {note['system']}" if "system" in note
                                                else "") + f": {note['reason']}"
              for note in not_scored]
    return ScoredRun(target, created, lines, appended)


def _load_run(run_dir: Path) -> tuple[dict[str, Any], RunManifest]:
    """``run.json`` and the run manifest it names (unchanged since the run)."""
    if not run_dir.is_dir():
        raise InputError("no such run directory", path=run_dir)
    path = run_dir / "run.json"
    if not path.is_file() or not (run_dir / lineage.LINEAGE_FILE).is_file():
        raise InputError("not a run directory: it has no run.json and lineage.jsonl "
                         "(made by `transcripts run`)", path=run_dir)
    run: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    manifest_path = Path(run["manifest"]["path"])
    if not manifest_path.is_file() or sha256_file(manifest_path) != run["manifest"]["sha256"]:
        raise InputError("the run's manifest is missing or changed since the run (its "
                         "SHA-256 differs): its references are not the run's",
                         path=manifest_path)
    return run, load_run_manifest(manifest_path)


def _tracks(run: dict[str, Any], requested: Sequence[str], run_dir: Path) -> list[str]:
    """The tracks to score: those asked for (each one of the run's, not the gold window),
    else every track of the run but the gold window."""
    for track in requested:
        if track not in run["tracks"]:
            raise InputError(f"--track {track}: not a track of this run; its tracks: "
                             f"{', '.join(run['tracks'])}", path=run_dir / "run.json")
        if track == GOLD:
            raise InputError(f"--track {track}: not scored against the references: "
                             f"{GOLD_NOT_SCORED}", path=run_dir / "run.json")
    chosen = list(dict.fromkeys(requested)) if requested else run["tracks"]
    return [track for track in chosen if track != GOLD]


def _check_samples(manifest: RunManifest, sample_ids: Sequence[str]) -> None:
    """Every sample of the run names a declared scenario, a source and (speech) a
    reference transcript."""
    by_id = {s.id: s for s in manifest.samples}
    for sample_id in sample_ids:
        spec = by_id.get(sample_id)
        problem = None
        if spec is None:
            problem = "is in the run but not in its manifest"
        elif spec.scenario is None or spec.scenario not in manifest.scenarios:
            problem = ("has no scenario declared under the manifest's scenarios"
                       if spec.scenario is None else
                       f"scenario {spec.scenario!r} is not declared under scenarios")
        elif spec.source is None:
            problem = "has no source (the independent source id the maturity levels count)"
        elif spec.kind not in NON_SPEECH_KINDS and (spec.reference is None
                                                    or spec.reference.transcript is None):
            problem = (f"has no reference transcript (reference.transcript), so a {spec.kind} "
                       "sample cannot be scored")
        elif spec.kind in NON_SPEECH_KINDS and spec.reference is not None \
                and spec.reference.transcript is not None:
            problem = (f"is a {spec.kind} sample with a reference transcript; it is scored "
                       "by its hallucinated output only")
        if problem is not None:
            raise InputError(f"sample {problem}; `transcripts score --run` reads the scoring "
                             "keys of the run manifest (docs/transcripts-run.md)",
                             path=manifest.path, sample_id=sample_id)


def _plan(run_dir: Path, run: dict[str, Any], manifest: RunManifest,
          known: dict[str, dict[str, Any]], track: str, system: str
          ) -> tuple[Plan | None, list[dict[str, str]]]:
    """The score manifest of one (track, system), and what is left out and why (a sample
    whose every job is unsupported on the track; the whole pair when none is left)."""
    specs = {s.id: s for s in manifest.samples}
    samples, notes = [], []
    artefacts: dict[tuple[str, int], tuple[str | None, str | None]] = {}
    for sample_id in run["samples"]:
        runs = []
        for repeat in range(1, int(run["repeats"]) + 1):
            key = f"{system}/{track_dir(track)}/{sample_id}/r{repeat}"
            entry = _run_entry(run_dir, known, key, sample_id, repeat,
                               float(run["settings"]["chunker"]["cut_margin_s"]))
            if entry is not None:
                runs.append(entry[0])
                artefacts[(sample_id, repeat)] = entry[1]
        if not runs:
            notes.append({"track": track, "system": system, "sample": sample_id,
                          "reason": f"sample {sample_id}: every job is unsupported"})
            continue
        samples.append(_sample_entry(run_dir, specs[sample_id], runs))
    if not samples:
        return None, [{"track": track, "system": system,
                       "reason": "every job is unsupported on this track"}]
    used = sorted({s["scenario"] for s in samples})
    return Plan(track, system, {
        "format": FORMAT, "system": system,
        "scenarios": {name: manifest.scenarios[name].model_dump(mode="json") for name in used},
        "samples": samples}, artefacts), notes


def _run_entry(run_dir: Path, known: dict[str, dict[str, Any]], key: str, sample_id: str,
               repeat: int, margin_s: float
               ) -> tuple[dict[str, Any], tuple[str | None, str | None]] | None:
    """The score manifest's run of one job, with the ids of what it scores; ``None`` for
    an unsupported job. A chunked job's run names its cuts (each chunk's start but the
    first's) and the chunker's margin, so its regions are scored apart."""
    meta_path = run_dir / "raw" / key / "meta.json"
    if not meta_path.is_file():
        raise InputError(f"job {key} has not run (no meta.json); finish the run with "
                         "`transcripts run --resume RUN`", path=meta_path, sample_id=sample_id)
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    if meta["status"] == "unsupported":
        return None
    cuts = ({} if meta.get("chunks") is None else {"chunk_cuts": {
        "cuts_s": [chunk.get("cut_s", chunk["start_s"]) for chunk in meta["chunks"][1:]],
        "margin_s": margin_s}})
    if meta["status"] != "succeeded":
        return {"repeat": repeat, "failed": meta.get("reason") or meta["status"],
                **cuts}, (None, None)
    derived = run_dir / "derived" / key
    transcript_id = f"transcript:{key}@{VERSION}"
    transcript = derived / transcript_name(VERSION)
    if transcript_id not in known or not transcript.is_file():
        raise InputError(f"job {key} has no derived transcript of rule {VERSION}; derive it "
                         "with `transcripts run --resume RUN`", path=derived,
                         sample_id=sample_id)
    entry: dict[str, Any] = {"repeat": repeat, "transcript": str(transcript.resolve()),
                             **cuts}
    words_id: str | None = f"words:{key}@{WORDS_VERSION}"
    words = derived / transcript_name(WORDS_VERSION, "words")
    if words_id in known and words.is_file():
        entry["words"] = str(words.resolve())
    else:
        words_id = None
    return entry, (transcript_id, words_id)


def _sample_entry(run_dir: Path, spec: RunSample, runs: list[dict[str, Any]]
                  ) -> dict[str, Any]:
    """A score manifest's sample: the run manifest's scoring keys, the decoded input's
    duration, the runs."""
    identity_path = run_dir / "input" / f"{spec.id}.json"
    if not identity_path.is_file():
        raise InputError(f"input/{spec.id}.json is missing: the sample was never decoded; "
                         "finish the run with `transcripts run --resume RUN`",
                         path=run_dir, sample_id=spec.id)
    identity = json.loads(identity_path.read_text(encoding="utf-8"))
    entry: dict[str, Any] = {"id": spec.id, "scenario": spec.scenario,
                             "duration_s": identity["derived"]["seconds"], "kind": spec.kind,
                             "source": spec.source, "speakers": list(spec.speakers),
                             "runs": runs}
    if spec.reference is not None:
        ref = spec.reference
        entry["reference"] = {
            **{name: str(path) for name in ("transcript", "rttm", "words")
               if (path := getattr(ref, name)) is not None},
            **({"terms": list(ref.terms)} if ref.terms else {})}
    return entry


_FILE_KEYS = ("transcript", "rttm", "words")


def _digest_view(plan: Plan) -> dict[str, Any]:
    """The plan with every file named by its SHA-256, so the digest follows the bytes
    scored, not where the run lies."""
    def hashed(entry: dict[str, Any]) -> dict[str, Any]:
        return {k: (sha256_file(Path(v)) if k in _FILE_KEYS else v) for k, v in entry.items()}

    samples = [{**s, "reference": hashed(s.get("reference", {})),
                "runs": [hashed(r) for r in s["runs"]]} for s in plan.manifest["samples"]]
    return {"track": plan.track, "system": plan.system,
            "manifest": {**plan.manifest, "samples": samples}}


def _write(staging: Path, name: str, run_dir: Path, plans: Sequence[Plan],
           not_scored: list[dict[str, str]], command: Sequence[str],
           executor: Executor | None) -> None:
    """Score every plan into its folder, then write the run-level files."""
    summaries = {}
    for plan in plans:
        folder = staging / plan.folder
        folder.mkdir(parents=True)
        manifest = folder / "manifest.json"
        atomic_write_text(manifest, dumps(plan.manifest))
        summaries[plan.folder] = score_into(manifest, folder, command, executor, False)
    rows = _rows(staging, name, plans)
    atomic_write_text(staging / "scores.jsonl", dumps_lines(rows))
    atomic_write_text(staging / "report.md", report_markdown(rows, not_scored))
    atomic_write_text(staging / "score.json", dumps({
        "kind": "transcripts.score_run", "score_version": SCORE_VERSION,
        "normalizer_version": NORMALIZER_VERSION, "transcript_version": VERSION,
        "words_version": WORDS_VERSION, "speecheval": __version__,
        "run_json_sha256": sha256_file(run_dir / "run.json"),
        "scored": [{"track": p.track, "system": p.system, "folder": p.folder,
                    "summary": summaries[p.folder]} for p in plans],
        "not_scored": not_scored, "command": list(command)}))


def _rows(folder: Path, name: str, plans: Sequence[Plan]) -> list[dict[str, Any]]:
    """One row per scored run, read back from each plan's ``samples.jsonl`` in ``folder``
    (its line is the one a ``score:`` record points at); ``name``: the score folder's."""
    rows = []
    for plan in plans:
        samples = folder / plan.folder / "samples.jsonl"
        for line, text in enumerate(samples.read_text(encoding="utf-8").splitlines(), 1):
            row = json.loads(text)
            key = (f"{plan.system}/{track_dir(plan.track)}/{row['sample_id']}/"
                   f"r{row['repeat']}")
            transcript, words = plan.artefacts[(row["sample_id"], row["repeat"])]
            rows.append(_report_row(plan, key, f"{plan.folder}/samples.jsonl", line, row,
                                    transcript, words, name))
    return rows


def _report_row(plan: Plan, key: str, samples: str, line: int, row: dict[str, Any],
                transcript: str | None, words: str | None, name: str) -> dict[str, Any]:
    """The report's row of one scored run: where it is, its numbers, its rule versions."""
    rate = row["rate_name"]
    return {"artefact": f"score:{key}@{name}", "track": plan.track, "system": plan.system,
            "sample": row["sample_id"], "repeat": row["repeat"], "scenario": row["scenario"],
            "failed": row["failed"], "row": f"{samples}#{line}", "transcript": transcript,
            "words": words, "rate_name": rate,
            "rate": None if row["text"] is None else row["text"][rate],
            "cp": _value(row, "cp", "cp" + rate), "wder": _value(row, "wder", "wder"),
            "der": _value(row, "diarization", "der"),
            **({"chunk_regions": row["chunk_regions"]} if row.get("chunk_regions") else {}),
            "rules": {"transcript": VERSION if transcript else None,
                      "words": WORDS_VERSION if words else None,
                      "normalizer": NORMALIZER_VERSION, "scorer": SCORE_VERSION}}


def _value(row: dict[str, Any], measure: str, key: str) -> float | None:
    found = row.get(measure)
    return None if not isinstance(found, dict) else found.get(key)


def _record(known: dict[str, dict[str, Any]], run_dir: Path, target: Path,
            row: dict[str, Any]) -> dict[str, Any]:
    """The ``score:`` lineage record of one report row (parent: the transcript scored,
    or the raw folder of a failed job)."""
    key = row["artefact"].split(":", 1)[1].rsplit("@", 1)[0]
    path, _, line = row["row"].partition("#")
    samples = target / path
    return {"id": row["artefact"], "kind": "score",
            "path": f"{target.relative_to(run_dir).as_posix()}/{row['row']}",
            "sha256": sha256_file(samples),
            **lineage.derived_from(known, row["transcript"] or f"raw:{key}"),
            "normalizer_version": NORMALIZER_VERSION, "scorer_version": SCORE_VERSION,
            "track": row["track"], "system": row["system"], "words": row["words"],
            "line": int(line)}


COLUMNS: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("system", lambda r: str(r["system"])),
    ("sample", lambda r: str(r["sample"])),
    ("repeat", lambda r: str(r["repeat"])),
    ("rate", lambda r: str(r["rate_name"]).upper() + (" (failed)" if r["failed"] else "")),
    ("value", lambda r: percent(r["rate"])),
    ("cp", lambda r: percent(r["cp"])),
    ("WDER", lambda r: percent(r["wder"])),
    ("DER", lambda r: percent(r["der"])),
    ("word times", lambda r: "yes" if r["words"] else "no"),
    ("artefact", lambda r: str(r["artefact"])),
)
"""The columns of the report's table: a new column is one more (header, cell) pair."""


def _region(row: dict[str, Any], region: str, key: str) -> float | None:
    found = row["chunk_regions"][region]
    value = found.get(key) if key != "der" else (found["der"] or {}).get("der")
    return None if value is None else float(value)


REGION_COLUMNS: tuple[tuple[str, Callable[[dict[str, Any], str], str]], ...] = (
    ("system", lambda r, g: str(r["system"])),
    ("sample", lambda r, g: str(r["sample"])),
    ("repeat", lambda r, g: str(r["repeat"])),
    ("region", lambda r, g: g),
    ("rate", lambda r, g: str(r["rate_name"]).upper()),
    ("value", lambda r, g: percent(_region(r, g, str(r["rate_name"])))),
    ("N", lambda r, g: str(r["chunk_regions"][g]["length"])),
    ("cp", lambda r, g: percent(_region(r, g, "cp" + str(r["rate_name"])))),
    ("DER", lambda r, g: percent(_region(r, g, "der"))),
)
"""The columns of a chunked track's region table (one row per run and region)."""


def report_markdown(rows: Sequence[dict[str, Any]], not_scored: Sequence[dict[str, str]]
                    ) -> str:
    """``report.md``: the rule versions, one table per track (a row per system, sample
    and repeat), then what was not scored."""
    parts = ["# Scores of the run\n",
             f"Rules: transcript {VERSION}, word times {WORDS_VERSION}, normalizer "
             f"{NORMALIZER_VERSION}, scorer {SCORE_VERSION}. Each row's artefact is its "
             "`score:` record in the run's lineage.jsonl (`speecheval transcripts lineage "
             "RUN --artefact ID` walks it back to the input audio). n/a: not scored (a "
             "system without speakers has no cp, WDER or DER).\n"]
    for track in dict.fromkeys(r["track"] for r in rows):
        table = Table.of([header for header, _ in COLUMNS],
                         [[cell(r) for _, cell in COLUMNS] for r in rows if r["track"] == track])
        parts.append(f"## Track {track}\n\n{to_markdown(table)}")
        chunked = [r for r in rows if r["track"] == track and "chunk_regions" in r]
        if chunked:
            parts.append(f"### Track {track}: inside chunks and near cuts, apart\n\n"
                         + to_markdown(Table.of([h for h, _ in REGION_COLUMNS], [
                             [cell(r, region) for _, cell in REGION_COLUMNS]
                             for r in chunked for region in REGIONS])))
    if not_scored:
        parts.append("## Not scored\n\n" + "".join(
            f"- {n['track']}{' ' + n['system'] if 'system' in n else ''}: {n['reason']}\n"
            for n in not_scored))
    return "\n".join(parts)
