"""The official evaluator's numbers (``summary.json``) as a reference column.

``reference-evaluate`` writes ``summary.json`` with the hashes of the ``manifest.json``
and ``asr.json`` it evaluated. Its numbers are shown beside ours only when both hashes
match the tree being scored; otherwise a line says which input changed. It is never used
for scoring. Like every file of the tree, a ``summary.json`` that links outside the tree
is refused (InputError), not read.

Format (``tree_schema.SummaryFile``; a writer may add keys at the top level only)::

    {"kind": "fdb-v1.0-reference-summary", "schema_version": 1,
     "inputs": {"manifest_sha256": str, "asr_sha256": str},
     "judge": {"model": str, "official": bool, "keys": [str, ...]},
     "subsets": {"<subset>": {"<official metric>": number | null, ...}}}

``judge.keys`` names the metrics rated by the judge (the interruption ratings); they are
labelled with the judge's model unless ``judge.official`` is true. A judge that does not
say it is the official one is not taken for it. A file that does not follow the format
leaves the column out, with a line naming the file, the key and the problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ....core.errors import InputError
from ...common.tree import SUMMARY_FILE, SUMMARY_KIND, tree_file

__all__ = ["SUMMARY_KIND", "ReferenceColumn", "load_reference_column"]


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
    # imported once there is a file to read: pydantic costs a warm run most of its time
    from ....core.schema import load
    from ...common.tree_schema import SummaryFile

    try:
        data = load(SummaryFile, path, what="summary.json")
    except InputError as exc:
        return None, f"reference column left out: {exc}"
    changed = [name for name, theirs, ours in (
        ("manifest.json", data.inputs.manifest_sha256, manifest_sha256),
        ("asr.json", data.inputs.asr_sha256, asr_sha256)) if theirs != ours]
    if changed:
        return None, ("reference column left out: summary.json was made from a different "
                      + " and ".join(changed))
    judge = data.judge
    label = "official judge" if judge.official else f"judge {judge.model}"
    return (ReferenceColumn({k: dict(v) for k, v in data.subsets.items()}, label,
                            frozenset(judge.keys)),
            "reference column: official evaluator (summary.json matches manifest.json and "
            "asr.json)")
