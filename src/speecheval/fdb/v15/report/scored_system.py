"""What ``fdb15 score`` wrote for one system, read once for every part of the page.

The score folder's files are the page's only numbers: ``timing.json`` (each scenario's
summary, and whatever else a later ``fdb15 score`` records beside it),
``timing-samples.jsonl`` (the trials), and where scored ``behaviour.json`` with its labels
and ``prosody.json``. A missing or broken file is bad input naming it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ....core.errors import InputError


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise InputError("missing: is this the output folder of fdb15 score?", path=path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc}", path=path) from None


def _read_lines(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError("missing: is this the output folder of fdb15 score?", path=path)
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON Lines: {exc}", path=path) from None


@dataclass(frozen=True)
class ScoredSystem:
    """What ``fdb15 score`` wrote for one system, and its tree."""

    name: str
    scored: Path
    tree: Path
    document: dict[str, Any]
    """``timing.json`` as written."""
    timing: list[dict[str, Any]]
    behaviour: dict[str, Any] | None
    labels: dict[str, dict[str, Any]]
    prosody: dict[str, Any] | None

    @property
    def summary(self) -> dict[str, dict[str, Any]]:
        """Each scenario's summary in ``timing.json``."""
        return dict(self.document.get("scenarios") or {})


def load_system(name: str, scored: Path, tree: Path) -> ScoredSystem:
    """Read one score folder; behaviour and prosody only when it has them."""
    document = _read_json(scored / "timing.json")
    if not isinstance(document, dict) or not isinstance(document.get("scenarios"), dict):
        raise InputError("not an fdb15 score timing.json (no scenarios)",
                         path=scored / "timing.json")
    timing = _read_lines(scored / "timing-samples.jsonl")
    for row in timing:
        if not (tree / row["sample_id"]).is_dir():
            raise InputError(f"the tree has no folder for {row['sample_id']} (is it the tree "
                             "that was scored?)", path=tree)
    behaviour = labels = prosody = None
    if (scored / "behaviour.json").is_file():
        behaviour = _read_json(scored / "behaviour.json")
        labels = {row["sample_id"]: row
                  for row in _read_lines(scored / "behaviour-samples.jsonl")}
    if (scored / "prosody.json").is_file():
        prosody = _read_json(scored / "prosody.json")
    return ScoredSystem(name, scored, tree, document, timing, behaviour, labels or {},
                        prosody)
