"""What is arbitrated: independent references and candidate texts.

References, JSON Lines, one object per sample::

    {"sample": "ep1", "reference": "...", "independent": true, "reference_type": "human"}

(``reference_path`` instead of ``reference`` names a UTF-8 text file, relative to the
references file). Only ``"independent": true`` references are used: a model transcript is no
reference for judging models (spec). Candidates come either from a JSON Lines file,
``{"sample": "ep1", "system": "whisper", "text": "..."}``, or from a run directory:
the text of each system's raw output for one track and repeat.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ..formats._io import read_text
from ..gate.inputs import read_meta
from ..gate.run_dir import META, find_items, read_item

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Reference:
    text: str
    independent: bool
    reference_type: str | None


def _rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, object)`` of each non-blank line of a JSON Lines file."""
    for number, line in enumerate(read_text(path, "JSON Lines").splitlines(), start=1):
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
    if not isinstance(value, str) or not _SAFE_ID.fullmatch(value):
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


def run_candidates(run: Path, track: str | None, repeat: str
                   ) -> tuple[str, dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """Candidates from a run: ``(track, sample -> system -> text, sample -> system -> raw
    key)`` of repeat ``repeat``; the raw key (``<system>/<track-dir>/<sample>/r<k>``) names
    the lineage parent of the arbitration.

    The text is every complete segment's text of the raw output, in order (timestamps and
    tags left out); a cut final segment is not shown to the judges.
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
    found: dict[str, dict[str, str]] = {}
    keys: dict[str, dict[str, str]] = {}
    for item in items:
        if item.track != track:
            continue
        read = read_item(item, read_meta(item.folder / META), run)
        if isinstance(read, str):
            continue  # the gate records why; the judges see the systems that answered
        found.setdefault(item.sample, {})[item.system] = " ".join(
            seg.text for seg in read[0].segments)
        keys.setdefault(item.sample, {})[item.system] = item.key
    return track, found, keys
