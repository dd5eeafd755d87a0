"""Bring an older run's raw answers into a run, with how far they can be trusted.

Spec (Artifact lineage 与规则升级): an imported result records ``exact_input_match``,
``protocol_compatibility`` and ``identity_confidence``, and an incompatible one goes to a
diagnostic track only. Each raw folder of the older run is copied once, byte for byte, to
``RUN/imported/<old run.json SHA-256, 12 hex>/raw/<key>/`` and recorded in
``RUN/lineage.jsonl`` as ``imported:<digest>/<key>``:

- ``exact_input_match``: the older job's input PCM SHA-256 equals this run's input of the
  same sample (``null`` when either is unknown);
- ``protocol_compatibility``: ``compatible`` when the input matches exactly, the input
  adapter's settings are the same, this run has the track and (chunked) the same chunker
  settings; else ``incompatible`` with the reasons in ``incompatibilities``;
- ``identity_confidence``: ``exact`` when the older run recorded the system's identity and
  it equals this run's identity of the same system, ``recorded`` when it recorded one
  that differs or this run lacks the system, ``none`` when it recorded none;
- ``track_use``: the job's track when compatible, else ``diagnostic``.

Each succeeded answer is derived as the run's own are: a transcript
(``imported_transcript``) and, where the answer has word times, its word-level form
(``imported_words``, ``words@seglst-words-1.json``).

Nothing of this run is changed but the new folder and the appended records; the same
import again copies nothing and appends nothing.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...core.canonical_json import dumps
from ...core.errors import InputError
from ...core.hashing import sha256_file
from ...core.output import atomic_write_bytes
from .. import lineage
from ..gate.inputs import read_meta
from .chunker import ChunkerSettings
from .derive import VERSION, WORDS_VERSION, derive, derive_words, transcript_name
from .jobs import META, raw_sha256
from .systems.registry import PARSERS
from .tracks import CHUNKED, GOLD

IMPORTED = lineage.IMPORTED_FOLDER


def import_run(run_dir: Path, old_dir: Path) -> list[dict[str, Any]]:
    """Import every raw folder of ``old_dir`` into ``run_dir``; the records (new or not)."""
    run, old = _run_json(run_dir), _run_json(old_dir)
    if run_dir.resolve() == old_dir.resolve():
        raise InputError("a run cannot import itself", path=old_dir)
    run_sha256 = sha256_file(old_dir / "run.json")
    digest = run_sha256[:12]
    known = {r["id"]: r for r in lineage.read_records(run_dir)}
    old_records = {r["id"]: r for r in lineage.read_records(old_dir)}
    records = []
    # every meta.json read (bad input named) before anything is copied or appended
    found = [(path.parent, read_meta(path))
             for path in sorted((old_dir / "raw").glob(f"*/*/*/r*/{META}"))]
    for folder, meta in found:
        key = "/".join(folder.relative_to(old_dir / "raw").parts)
        system, track_dir, sample, _ = key.split("/")
        track = track_dir.replace(".", "/")
        raw_record = old_records.get(f"raw:{key}", {})
        old_input = raw_record.get("input_sha256")
        input_id = f"input:{sample}/gold" if track == GOLD else f"input:{sample}"
        new_input = known.get(input_id, {}).get("input_sha256")
        match = None if old_input is None or new_input is None else old_input == new_input
        problems = _incompatibilities(run, old, track, match)
        target = Path(IMPORTED) / digest / "raw" / key
        _copy_once(folder, run_dir / target)
        records.append({
            "id": f"imported:{digest}/{key}", "kind": "imported_raw", "path": str(target),
            "sha256": raw_sha256(meta), "parent": input_id if match else None,
            "input_sha256": old_input, "request_config": raw_record.get("request_config"),
            "model_revision": raw_record.get("model_revision"),
            "raw_sha256": raw_sha256(meta), "normalizer_version": None,
            "scorer_version": None, "status": meta.get("status"),
            "exact_input_match": match,
            "protocol_compatibility": "incompatible" if problems else "compatible",
            "incompatibilities": problems,
            "identity_confidence": _identity_confidence(run, old, system),
            "track_use": "diagnostic" if problems else track,
            "source": {"run": str(old_dir.resolve()), "run_sha256": run_sha256,
                       "speecheval": old.get("speecheval")}})
    if not records:
        raise InputError("the older run holds no raw/<system>/<track-dir>/<sample>/r<k>/"
                         "meta.json", path=old_dir)
    lineage.append_missing(run_dir, records)
    lineage.append_missing(run_dir, [
        derived for record, (_, meta) in zip(records, found, strict=True)
        if record["status"] == "succeeded"
        for derived in _derive_imported(run_dir, old, record, meta)])
    return records


def _derive_imported(run_dir: Path, old: dict[str, Any], raw: dict[str, Any],
                     meta: dict[str, Any]) -> list[dict[str, Any]]:
    """Derive the transcript of an imported raw folder with the older run's adapter, as
    ``transcripts run`` derives its own (rule :data:`.derive.VERSION`), and its word-level
    form where the answer has word times (rule :data:`.derive.WORDS_VERSION`), into
    ``imported/<digest>/derived/<key>/``; their records carry the import's trust facts.
    ``meta`` is the raw folder's ``meta.json``, as the import read it."""
    digest, key = raw["id"].removeprefix("imported:").split("/", 1)
    system, _, sample, _ = key.split("/")
    folder = run_dir / raw["path"]
    adapter = old.get("systems", {}).get(system, {}).get("adapter")
    if adapter not in PARSERS:
        raise InputError(f"the older run's run.json names no known adapter for system "
                         f"{system!r} (got {adapter!r}), so its answers cannot be read",
                         path=Path(raw["source"]["run"]) / "run.json")
    margin = float(old.get("settings", {}).get("chunker", {}).get(
        "cut_margin_s", ChunkerSettings().cut_margin_s))
    derived = Path(IMPORTED) / digest / "derived" / key
    transcript = _imported_file(run_dir, raw, derived / transcript_name(VERSION), VERSION,
                                "transcript",
                                lambda: derive(folder, adapter, sample, meta, margin))
    words = _imported_file(run_dir, raw, derived / transcript_name(WORDS_VERSION, "words"),
                           WORDS_VERSION, "words",
                           lambda: derive_words(folder, adapter, sample, meta, margin))
    return [record for record in (transcript, words) if record is not None]


def _imported_file(run_dir: Path, raw: dict[str, Any], target: Path, version: str,
                   kind: str, make: Callable[[], tuple[str, dict[str, Any]] | None]
                   ) -> dict[str, Any] | None:
    """Write ``target`` unless it is there (``make`` gives its text, ``None`` when the
    answer holds nothing of that kind) and give its ``imported_<kind>`` record."""
    if not (run_dir / target).exists():
        found = make()
        if found is None:
            return None
        atomic_write_bytes(run_dir / target, found[0].encode("utf-8"))
    return {"id": f"{kind}:{raw['id']}@{version}", "kind": f"imported_{kind}",
            "path": str(target), "sha256": sha256_file(run_dir / target),
            "parent": raw["id"], "input_sha256": raw["input_sha256"],
            "request_config": raw["request_config"], "model_revision": raw["model_revision"],
            "raw_sha256": raw["raw_sha256"], "normalizer_version": version,
            "scorer_version": None, **{k: raw[k] for k in lineage.IMPORT_KEYS}}


def _run_json(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "run.json"
    if not path.is_file():
        raise InputError("not a run directory: it has no run.json", path=run_dir)
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg}", path=path) from None
    if not isinstance(found, dict):
        raise InputError("run.json must be a JSON object", path=path)
    return found


def _incompatibilities(run: dict[str, Any], old: dict[str, Any], track: str,
                       match: bool | None) -> list[str]:
    """Why the older job cannot stand beside this run's jobs (none when it can)."""
    problems = []
    if match is not True:
        problems.append("the input audio differs" if match is False
                        else "the input audio is not known to match")
    settings, old_settings = run.get("settings", {}), old.get("settings", {})
    if settings.get("input_adapter") != old_settings.get("input_adapter"):
        problems.append("the input adapter's settings differ")
    if track not in run.get("tracks", []):
        problems.append(f"this run has no track {track}")
    elif track == CHUNKED and settings.get("chunker") != old_settings.get("chunker"):
        problems.append("the chunker's settings differ")
    return problems


def _identity_confidence(run: dict[str, Any], old: dict[str, Any], system: str) -> str:
    recorded = old.get("systems", {}).get(system, {}).get("identity")
    if recorded is None:
        return "none"
    current = run.get("systems", {}).get(system, {}).get("identity")
    return "exact" if current is not None and dumps(current) == dumps(recorded) else "recorded"


def _copy_once(source: Path, target: Path) -> None:
    """Copy a raw folder to ``target`` unless it is there (staged, then renamed)."""
    if target.exists():
        return
    staging = target.with_name(f".{target.name}.partial")
    if staging.exists():
        shutil.rmtree(staging)
    shutil.copytree(source, staging)
    staging.rename(target)
