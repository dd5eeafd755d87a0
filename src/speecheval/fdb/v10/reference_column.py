"""The official evaluator's numbers (``summary.json``) as a reference column.

``reference-evaluate`` writes ``summary.json`` with the hashes of the ``manifest.json``
and ``asr.json`` it evaluated. Its numbers are shown beside ours only when both hashes
match the tree being scored; otherwise a line says which input changed. It is never used
for scoring. Like every file of the tree, a ``summary.json`` that links outside the tree
is refused (InputError), not read.

Format (extra keys are ignored)::

    {"kind": "fdb-v1.0-reference-summary", "schema_version": 1,
     "inputs": {"manifest_sha256": str, "asr_sha256": str},
     "judge": {"model": str, "official": bool, "keys": [str, ...]},
     "subsets": {"<subset>": {"<official metric>": number | null, ...}}}

``judge.keys`` names the metrics rated by the judge (the interruption ratings); they are
labelled with the judge's model unless ``judge.official`` is true. A judge that does not
say it is the official one is not taken for it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .tree import SUMMARY_FILE, tree_file

SUMMARY_KIND = "fdb-v1.0-reference-summary"


@dataclass(frozen=True)
class ReferenceColumn:
    """Official numbers per subset, and which of them a judge rated and how to label it."""

    subsets: dict[str, dict[str, Any]]
    judge_label: str
    judged_keys: frozenset[str]

    def label(self, key: str) -> str:
        """``official`` for the evaluator's own numbers, the judge's label for rated ones."""
        return self.judge_label if key in self.judged_keys else "official"


def load_reference_column(tree: Path, manifest_sha256: str, asr_sha256: str
                          ) -> tuple[ReferenceColumn | None, str]:
    """The reference column if it matches this tree, and a line saying what was found."""
    path = tree_file(tree, SUMMARY_FILE)
    if not path.is_file():
        return None, "reference column: none (no summary.json; run reference-evaluate)"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return None, f"reference column left out: {path} is not valid JSON ({exc})"
    if not isinstance(data, dict) or data.get("kind") != SUMMARY_KIND:
        return None, f"reference column left out: {path} is not a {SUMMARY_KIND} file"
    inputs: dict[str, Any] = data["inputs"] if isinstance(data.get("inputs"), dict) else {}
    changed = [name for name, key, ours in (
        ("manifest.json", "manifest_sha256", manifest_sha256),
        ("asr.json", "asr_sha256", asr_sha256)) if inputs.get(key) != ours]
    if changed:
        return None, ("reference column left out: summary.json was made from a different "
                      + " and ".join(changed))
    subsets = data.get("subsets")
    if not isinstance(subsets, dict):
        return None, f"reference column left out: {path} has no subsets object"
    judge: dict[str, Any] = data["judge"] if isinstance(data.get("judge"), dict) else {}
    official = judge.get("official") is True
    label = "official judge" if official else f"judge {judge.get('model', 'unknown model')}"
    keys: list[Any] = judge["keys"] if isinstance(judge.get("keys"), list) else []
    judged = frozenset(str(k) for k in keys)
    return (ReferenceColumn({k: v for k, v in subsets.items() if isinstance(v, dict)}, label,
                            judged),
            "reference column: official evaluator (summary.json matches manifest.json and "
            "asr.json)")
