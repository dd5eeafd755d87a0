"""Append-only lineage of a run directory: every artefact, what it came from, which rules made it.

The spec (Artifact lineage 与规则升级) asks that every number trace back to the input
audio SHA-256, the exact request configuration, the model revision, the raw answer's
SHA-256, the normalizer and scorer versions and the parent artefact, and that a rule
upgrade add artefacts instead of rewriting them. ``RUN/lineage.jsonl`` holds one record
per artefact, appended with :func:`append_record`, which refuses an id already present;
nothing here rewrites or removes a line. :func:`chain` walks a record's parents back to
the input audio, which ``speecheval transcripts lineage`` prints.

The record keys are listed in :data:`RECORD_KEYS` and described in
``docs/transcripts-run.md``; other commands (the gate, arbitration) append their own
kinds with the same keys, through :func:`derived_from` and :func:`append_missing`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..core.canonical_json import dumps_line
from ..core.errors import InputError

LINEAGE_FILE = "lineage.jsonl"
RECORD_KEYS = ("id", "kind", "path", "sha256", "parent", "input_sha256", "request_config",
               "model_revision", "raw_sha256", "normalizer_version", "scorer_version")
"""Every record has these keys (``None`` where one does not apply); more may follow."""
GATE_FOLDER = "gate"
ARBITRATION_FOLDER = "arbitration"
SCORE_FOLDER = "score"
COMMAND_FOLDERS = (GATE_FOLDER, ARBITRATION_FOLDER, SCORE_FOLDER)
"""Folders of ``RUN/derived/`` written by commands; beside them ``RUN/derived/<system>/``
holds each system's transcripts, so no system may take one of these names."""
IMPORTED_FOLDER = "imported"
"""``RUN/imported/<digest>/raw/<key>/``: an older run's raw answers (``transcripts import``)."""
IMPORT_KEYS = ("exact_input_match", "protocol_compatibility", "incompatibilities",
               "identity_confidence", "track_use")
"""What an ``imported_raw`` record says about how far the older result can be trusted."""


def read_records(run_dir: Path) -> list[dict[str, Any]]:
    """The records of ``run_dir`` in the order they were appended (none if no file yet)."""
    path = run_dir / LINEAGE_FILE
    if not path.is_file():
        return []
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"line {number}: not a JSON record ({exc.msg})",
                                 path=path) from None
            if not isinstance(record, dict) or not isinstance(record.get("id"), str):
                raise InputError(f"line {number}: a lineage record is an object with an "
                                 f"\"id\"", path=path)
            records.append(record)
    return records


def append_record(run_dir: Path, record: Mapping[str, Any]) -> None:
    """Append ``record`` to ``run_dir``'s lineage; an id already recorded is refused.

    The line is written with one ``write`` on a file opened for appending and flushed to
    disk, so a crash leaves whole records; earlier lines are never touched.
    """
    missing = [key for key in RECORD_KEYS if key not in record]
    if missing:
        raise ValueError(f"lineage record lacks {', '.join(missing)}")
    known = {r["id"] for r in read_records(run_dir)}
    if record["id"] in known:
        raise InputError(f"the lineage already has an artefact {record['id']!r}; "
                         "artefacts are never replaced", path=run_dir / LINEAGE_FILE)
    parent = record["parent"]
    if parent is not None and parent not in known:
        raise ValueError(f"lineage parent {parent!r} of {record['id']!r} is not recorded")
    line = dumps_line(dict(record)).encode("utf-8")
    fd = os.open(run_dir / LINEAGE_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def append_missing(run_dir: Path, records: Iterable[Mapping[str, Any]]) -> int:
    """Append each of ``records`` whose id the lineage lacks; how many were appended.

    A command that derives a folder once and finds it made on the next call (or after a
    crash between the folder and its records) appends only what is missing, so the same
    inputs never give a record twice.
    """
    known = {r["id"] for r in read_records(run_dir)}
    added = 0
    for record in records:
        if record["id"] not in known:
            append_record(run_dir, record)
            known.add(record["id"])
            added += 1
    return added


def derived_from(known: Mapping[str, Mapping[str, Any]], parent: str) -> dict[str, Any]:
    """The keys a record derived from the recorded artefact ``parent`` takes from it.

    A raw folder the lineage does not record (a run directory written by another program)
    gives ``parent`` ``None`` and no inherited facts: the chain stops there, honestly.
    """
    record = known.get(parent)
    if record is None:
        return {"parent": None, "input_sha256": None, "request_config": None,
                "model_revision": None, "raw_sha256": None}
    return {"parent": parent, "input_sha256": record.get("input_sha256"),
            "request_config": record.get("request_config"),
            "model_revision": record.get("model_revision"),
            "raw_sha256": record.get("raw_sha256")}


def chain(records: list[dict[str, Any]], artefact: str, *, path: Path | None = None
          ) -> list[dict[str, Any]]:
    """The record of ``artefact`` followed by its parent, the parent's parent, ... .

    :func:`append_record` only records a parent already present, so parents cannot form a
    cycle unless the file was edited; such a cycle (a record its own parent, or a longer
    loop) is an :class:`InputError` naming its records, not a walk without end. ``path``
    names the lineage file in errors."""
    by_id = {r["id"]: r for r in records}
    if artefact not in by_id:
        raise InputError(f"no artefact {artefact!r} in the lineage (list them with "
                         "`speecheval transcripts lineage RUN`)", path=path)
    found: list[dict[str, Any]] = []
    position: dict[str, int] = {}
    current: str | None = artefact
    while current is not None:
        if current in position:
            loop = [r["id"] for r in found[position[current]:]] + [current]
            raise InputError(f"the parents of {artefact!r} lead into a cycle: "
                             f"{' -> '.join(loop)}", path=path)
        record = by_id.get(current)
        if record is None:
            raise InputError(f"the lineage names a parent {current!r} it does not record",
                             path=path)
        position[current] = len(found)
        found.append(record)
        current = record["parent"]
    return found


def describe(record: Mapping[str, Any]) -> str:
    """One record as indented ``key: value`` lines (values as compact JSON)."""
    lines = [f"{record['id']}"]
    for key in sorted(k for k in record if k != "id"):
        value = record[key]
        shown = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        lines.append(f"  {key}: {shown}")
    return "\n".join(lines)
