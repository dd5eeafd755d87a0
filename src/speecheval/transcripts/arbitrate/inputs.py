"""What is arbitrated: independent references and candidate texts.

References, JSON Lines, one object per sample::

    {"sample": "ep1", "reference": "...", "independent": true, "reference_type": "human"}

(``reference_path`` instead of ``reference`` names a UTF-8 text file, relative to the
references file). Only ``"independent": true`` references are used: a model transcript is no
reference for judging models (spec). Candidates come either from a JSON Lines file,
``{"sample": "ep1", "system": "whisper", "text": "..."}``, or from a run directory:
the text of each system's raw output for one track and repeat, the run's own and the
compatible imported ones (:func:`run_candidates`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from .. import lineage
from ..formats._io import read_text, split_lines
from ..gate.inputs import read_meta
from ..gate.run_dir import META, RawItem, find_items, read_item
from ..score.inputs import flat_text, load_transcript
from .prompt import LABELS

SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
"""A sample, system or judge id: safe as a file name (it names files of the output)."""


@dataclass(frozen=True)
class Reference:
    text: str
    independent: bool
    reference_type: str | None


def _rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, object)`` of each non-blank line of a JSON Lines file."""
    for number, line in enumerate(split_lines(read_text(path, "JSON Lines")), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"line {number}: not JSON: {exc.msg}", path=path) from None
        if not isinstance(row, dict):
            raise InputError(f"line {number}: expected a JSON object", path=path)
        yield f"line {number}", row


def _identifier(row: dict[str, Any], key: str, where: str, path: Path) -> str:
    """A sample or system id, safe as a file name (it names files of the output)."""
    value = row.get(key)
    if not isinstance(value, str) or not SAFE_ID.fullmatch(value):
        raise InputError(f"{where}: {key} must be a name of letters, digits, '.', '_' or '-', "
                         f"got {value!r}", path=path)
    return value


def read_references(path: Path) -> dict[str, Reference]:
    """The references file, by sample id."""
    found: dict[str, Reference] = {}
    for where, row in _rows(path):
        sample = _identifier(row, "sample", where, path)
        if sample in found:
            raise InputError(f"{where}: sample {sample!r} is listed twice", path=path)
        text = row.get("reference")
        if "reference_path" in row:
            if "reference" in row:  # which one was meant is not ours to guess
                raise InputError(f"{where}: sample {sample!r} has both reference and "
                                 "reference_path; give one", path=path)
            text = read_text(path.parent / str(row["reference_path"]), "reference")
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{where}: needs a non-empty reference or reference_path",
                             path=path)
        independent = row.get("independent")
        if not isinstance(independent, bool):
            raise InputError(f"{where}: independent must be true or false", path=path)
        kind = row.get("reference_type")
        found[sample] = Reference(text.strip(), independent, None if kind is None else str(kind))
    return found


def read_candidates(path: Path) -> dict[str, dict[str, str]]:
    """A candidates file: sample -> system -> text."""
    found: dict[str, dict[str, str]] = {}
    for where, row in _rows(path):
        sample = _identifier(row, "sample", where, path)
        system = _identifier(row, "system", where, path)
        text = row.get("text")
        if not isinstance(text, str):
            raise InputError(f"{where}: text must be a string", path=path)
        if system in found.setdefault(sample, {}):
            raise InputError(f"{where}: system {system!r} is listed twice for sample "
                             f"{sample!r}", path=path)
        found[sample][system] = " ".join(text.split())
    return found


DIAGNOSTIC_ONLY = ("an incompatible import goes to the diagnostic track only: it is never a "
                   "candidate in the blind vote (spec: Artifact lineage 与规则升级)")


@dataclass(frozen=True)
class RunCandidates:
    """The candidates of one track and repeat of a run.

    ``texts``: sample -> candidate -> text; ``origins``: sample -> candidate -> where it
    comes from (the run, or an import with its trust facts) and, as ``raw``, the lineage
    id of its raw folder (the parent of its arbitration record);
    ``diagnostic``: incompatible imports, left out of the vote, with their facts.
    """

    track: str
    texts: dict[str, dict[str, str]]
    origins: dict[str, dict[str, dict[str, Any]]]
    diagnostic: list[dict[str, Any]]


def run_candidates(run: Path, track: str | None, repeat: str,
                   systems: Sequence[str] = ()) -> RunCandidates:
    """Candidates from a run's own raw answers and its imported ones (``transcripts
    import``) of repeat ``repeat`` in one track; with ``systems``, only those systems'
    (an unknown name is an InputError).

    The text is the one ``transcripts score`` reads: the words of the job's derived
    transcript (its newest ``transcript:<key>@<rule>`` record in the run's lineage), in
    time order, a cut final segment included; a raw folder without one (not made by
    ``transcripts run``) shows the text of its raw output as the gate reads it (every
    complete segment, all of a plain text). ``origins`` names which (``text``). An
    imported answer is
    the candidate ``<system>.imported-<digest>`` beside the run's own, carrying its
    ``exact_input_match``, ``protocol_compatibility`` and ``identity_confidence``; an
    incompatible one (its ``track_use`` is ``diagnostic``) is listed in ``diagnostic``
    instead, never a candidate.
    """
    items = [item for item in find_items(run) if item.repeat == repeat]
    tracks = sorted({item.track for item in items})
    if track is None:
        if len(tracks) != 1:
            raise InputError(f"the run has tracks {', '.join(tracks) or '(none)'} for repeat "
                             f"{repeat}; name one with --track", path=run)
        track = tracks[0]
    elif track not in tracks:
        raise InputError(f"the run has no track {track!r} for repeat {repeat}", path=run)
    unknown = sorted(set(systems) - {item.system for item in items if item.track == track})
    if unknown:
        raise InputError(f"--system: the run has no {', '.join(unknown)} in track {track} "
                         f"for repeat {repeat}", path=run)
    records = {r["id"]: r for r in lineage.read_records(run)}
    derived = {r.get("parent"): r for r in records.values()  # the newest rule's last
               if r.get("kind") in ("transcript", "imported_transcript")}
    found = RunCandidates(track, {}, {}, [])
    for item in items:
        if item.track != track or (systems and item.system not in systems):
            continue
        origin: dict[str, Any] = {"origin": "run", "raw": item.raw_id}
        name = item.system
        if item.origin is not None:
            record = records.get(item.raw_id, {})
            origin = {"origin": "imported", "raw": item.raw_id,
                      **{key: record.get(key) for key in lineage.IMPORT_KEYS}}
            name = f"{item.system}.imported-{item.origin}"
            if record.get("protocol_compatibility") != "compatible":
                found.diagnostic.append({"sample": item.sample, "candidate": name, **origin,
                                         "use": DIAGNOSTIC_ONLY})
                continue
        read = _scored_text(run, item, derived.get(item.raw_id))
        if read is None:
            continue  # the gate records why; the judges see the systems that answered
        found.texts.setdefault(item.sample, {})[name] = read[0]
        found.origins.setdefault(item.sample, {})[name] = {**origin, "text": read[1]}
    return found


def _scored_text(run: Path, item: RawItem,
                 record: dict[str, Any] | None) -> tuple[str, str] | None:
    """``(text, where from)`` of one job (see :func:`run_candidates`) from its derived
    transcript's lineage ``record``, else its raw; ``None`` when the job has no answer."""
    if record is not None:
        segments = load_transcript(run / str(record["path"]), item.sample)
        return " ".join(flat_text(segments).split()), str(record["id"])
    read = read_item(item, read_meta(item.folder / META), run)
    if isinstance(read, str):
        return None
    return " ".join(seg.text for seg in read[0].segments), "raw output (gate reading)"


def too_many(candidates: Mapping[str, Mapping[str, str]]) -> str | None:
    """Why one blind vote cannot take these candidates, or ``None``: a sample with more
    candidates than there are labels (the refusal names them, so ``--system`` can pick)."""
    crowded = {sample: sorted(texts) for sample, texts in sorted(candidates.items())
               if len(texts) > len(LABELS)}
    if not crowded:
        return None
    sample, names = next(iter(crowded.items()))
    return (f"{len(crowded)} sample(s) have more than {len(LABELS)} candidates, more than "
            f"one blind vote takes (sample {sample}: {', '.join(names)}); pick at most "
            f"{len(LABELS)} with --system")


def only_systems(candidates: dict[str, dict[str, str]], systems: Sequence[str],
                 path: Path) -> dict[str, dict[str, str]]:
    """The candidates of ``systems`` only (a name no line has is an InputError)."""
    named = {system for texts in candidates.values() for system in texts}
    unknown = sorted(set(systems) - named)
    if unknown:
        raise InputError(f"--system: no candidate of {', '.join(unknown)}", path=path)
    return {sample: {k: v for k, v in texts.items() if k in systems}
            for sample, texts in candidates.items()}
