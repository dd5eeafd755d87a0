"""``summary.json``, the reference column: begun for a tree or added to, one subset at a
time, and written; the one place its dict is built (``column`` reads it back).

The file is bound to the hashes of ``manifest.json`` and ``asr.json``: a summary made
from other inputs is refused rather than added to. Each run of a subset is recorded under
``runs`` (:meth:`.runs.SubsetRun.report_dict`), its numbers under ``subsets``, and the
judge of the interruption subset under ``judge``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .... import __version__
from ....core import canonical_json
from ....core.errors import InputError
from ....core.output import atomic_write_text
from ...common.official_evaluator import REPOSITORY, REVISION
from ...common.tree import (
    SCHEMA_VERSION,
    SUBSET_TASKS,
    SUMMARY_FILE,
    USER_INTERRUPTION,
    read_json,
    tree_file,
)
from .column import SUMMARY_KIND
from .runs import NOT_COMPUTABLE, OK, Judge, SubsetRun


def open_summary(tree: Path, manifest_sha256: str, asr_sha256: str) -> dict[str, Any]:
    """The summary to add to: the one in the tree (same inputs), or a new one."""
    path = tree_file(tree, SUMMARY_FILE)
    if not path.exists():
        return {"kind": SUMMARY_KIND, "schema_version": SCHEMA_VERSION,
                "inputs": {"manifest_sha256": manifest_sha256, "asr_sha256": asr_sha256},
                "evaluator": {"repository": REPOSITORY, "revision": REVISION},
                "speecheval_version": __version__, "subsets": {}, "runs": {}}
    data = read_json(path, what="summary.json")
    if not isinstance(data, dict) or data.get("kind") != SUMMARY_KIND:
        raise InputError(f"not a {SUMMARY_KIND} file", path=path)
    inputs = data.get("inputs", {})
    for name, key, ours in (("manifest.json", "manifest_sha256", manifest_sha256),
                            ("asr.json", "asr_sha256", asr_sha256)):
        if inputs.get(key) != ours:
            raise InputError(f"summary.json was made from a different {name}; evaluate a "
                             "fresh copy of the tree", path=path)
    data.setdefault("subsets", {})
    data.setdefault("runs", {})
    return data


def evaluated(summary: dict[str, Any], subset: str) -> str | None:
    """The status of ``subset`` when it is already in the summary for good (``ok`` or
    ``not computable``), else None."""
    done = summary["runs"].get(subset, {}).get("status")
    return done if done in (OK, NOT_COMPUTABLE) else None


def add_run(summary: dict[str, Any], subset: str, run: SubsetRun, judge: Judge | None
            ) -> None:
    """Record one subset's run: the run itself, its numbers (or that it has none), and
    the judge when the subset is the interruption one."""
    if judge is not None and SUBSET_TASKS[subset] == USER_INTERRUPTION:
        summary["judge"] = judge.report_dict()
    summary["runs"][subset] = run.report_dict()
    if run.status == OK:
        summary["subsets"][subset] = run.values
    elif run.status == NOT_COMPUTABLE:
        summary["subsets"][subset] = {"status": NOT_COMPUTABLE}


def write_summary(tree: Path, summary: dict[str, Any]) -> None:
    """``TREE/summary.json``, canonical JSON, written atomically."""
    atomic_write_text(tree_file(tree, SUMMARY_FILE), canonical_json.dumps(summary))
