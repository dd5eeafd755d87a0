"""Where a scored transcript comes from, when it is an artefact of a ``transcripts run``.

A run's transcripts (``RUN/derived/...``) and the transcripts derived from imported raw
answers (``RUN/imported/<digest>/derived/...``, ``transcripts import``) are recorded in
``RUN/lineage.jsonl`` with their SHA-256. A manifest run whose transcript is such a file
(a folder above it holds ``run.json`` and ``lineage.jsonl`` with a transcript record of
that path) is scored like any transcript, and its row gets ``lineage``: the run folder,
the artefact id, and for an imported one how far it can be trusted
(``exact_input_match``, ``protocol_compatibility``, ``incompatibilities``,
``identity_confidence``, ``track_use``).

The spec (Artifact lineage 与规则升级) sends an incompatible import to a diagnostic track
only, so one (``track_use`` ``diagnostic``) is refused in the main protocol, as is a file
whose bytes differ from the SHA-256 its record holds (it is no longer the artefact).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ...core.hashing import sha256_file
from .. import lineage
from .manifest import Manifest

TRANSCRIPT_KINDS = ("transcript", "imported_transcript")


@dataclass(frozen=True)
class TranscriptOrigin:
    """Where one run's transcript comes from: the run folder (relative to the manifest),
    the artefact id and, for an imported one, what its lineage record says about how far it
    can be trusted (the record's values as written there; ``None`` where it says nothing)."""

    run: str
    artefact: str
    imported: bool
    exact_input_match: bool | None = None
    protocol_compatibility: str | None = None
    incompatibilities: Sequence[str] | None = None
    identity_confidence: str | None = None
    track_use: str | None = None

    @property
    def verified(self) -> bool:
        """Whether the transcript is known to be the configured system's output: the run's
        own, or an import whose identity is exact."""
        return not self.imported or self.identity_confidence == "exact"

    def report_dict(self) -> dict[str, Any]:
        """The row's ``lineage`` entry (the trust entries for an imported one only)."""
        return {"run": self.run, "artefact": self.artefact, "imported": self.imported,
                **({key: getattr(self, key) for key in lineage.IMPORT_KEYS}
                   if self.imported else {})}


def transcript_origins(manifest: Manifest) -> dict[tuple[str, int], TranscriptOrigin]:
    """The origin of every run whose transcript is a run artefact, by (sample, repeat)."""
    base = manifest.path.parent
    runs: dict[Path, dict[str, dict[str, Any]] | None] = {}
    found: dict[tuple[str, int], TranscriptOrigin] = {}
    for i, sample in enumerate(manifest.samples):
        for j, run in enumerate(sample.runs):
            if run.transcript is None:
                continue
            where = f"samples[{i}].runs[{j}].transcript"
            located = _record_of(run.transcript.resolve(), runs)
            if located is None:
                continue
            run_dir, record = located
            if sha256_file(run.transcript) != record["sha256"]:
                raise InputError(f"{where}: {run.transcript} is not the artefact "
                                 f"{record['id']} any more: its SHA-256 differs from the one "
                                 f"in {run_dir / lineage.LINEAGE_FILE}", path=manifest.path,
                                 sample_id=sample.id)
            imported = record["kind"] == "imported_transcript"
            if imported and record.get("track_use") == "diagnostic":
                why = "; ".join(record.get("incompatibilities") or []) or "incompatible"
                raise InputError(f"{where}: {record['id']} is an imported result incompatible "
                                 f"with its run ({why}): for the diagnostic track only, not "
                                 "the main protocol", path=manifest.path, sample_id=sample.id)
            found[(sample.id, run.repeat)] = TranscriptOrigin(
                Path(os.path.relpath(run_dir, base)).as_posix(), record["id"], imported,
                **({key: record.get(key) for key in lineage.IMPORT_KEYS} if imported else {}))
    return found


def _record_of(path: Path, runs: dict[Path, dict[str, dict[str, Any]] | None]
               ) -> tuple[Path, dict[str, Any]] | None:
    """The run folder above ``path`` and the transcript record of ``path`` in it."""
    for folder in path.parents:
        if folder not in runs:
            runs[folder] = _transcripts(folder)
        by_path = runs[folder]
        if by_path is not None:
            record = by_path.get(path.relative_to(folder).as_posix())
            return None if record is None else (folder, record)
    return None


def _transcripts(folder: Path) -> dict[str, dict[str, Any]] | None:
    """Transcript records of a run folder by path; ``None`` when ``folder`` is no run."""
    if not ((folder / "run.json").is_file() and (folder / lineage.LINEAGE_FILE).is_file()):
        return None
    return {r["path"]: r for r in lineage.read_records(folder)
            if r.get("kind") in TRANSCRIPT_KINDS}
