"""``tree_fast`` accepts a tree file only when the schema (``tree_schema``, pydantic) does,
and then reads the same content.

The schema is the definition. Each case mutates one valid file (a key removed, replaced by
a value of another type or an edge value, an unknown key added, a key repeated) and reads
it both ways: the plain reader must agree with the schema on acceptance, field for field.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from speecheval.core.errors import InputError
from speecheval.fdb.common import tree_fast
from speecheval.fdb.common import tree_read as tree

SAMPLE: dict[str, Any] = {
    "sample_id": "synthetic_pause_handling/1", "subset": "synthetic_pause_handling",
    "task": "pause_handling", "input_duration_s": 14.554, "eligible": True, "reasons": [],
    "files": {"output.wav": "a" * 64, "pause.json": "b" * 64},
}
RECORDED: dict[str, Any] = {  # the records reference-export adds (scoring ignores them)
    **SAMPLE, "sample_id": "synthetic_pause_handling/2", "capture": {"x": 1.5},
    "playout": None, "pacing": {"late": [1, 2]}, "eligibility_details": ["ok"],
    "faults_after_t": [{"kind": "x"}],
}
INELIGIBLE: dict[str, Any] = {
    "sample_id": "synthetic_user_interruption/3", "subset": "synthetic_user_interruption",
    "task": "user_interruption", "input_duration_s": 30, "eligible": False,
    "reasons": ["input_pacing"], "files": {},
}
MANIFEST: dict[str, Any] = {
    "kind": "fdb-v1.0-reference-tree", "schema_version": 1, "generator": {"name": "test"},
    "dataset": {"revision": "r1", "declared": {"synthetic_pause_handling": 137,
                                               "synthetic_user_interruption": 200}},
    "samples": [SAMPLE, RECORDED, INELIGIBLE],
}
ASR: dict[str, Any] = {"kind": "fdb-v1.0-reference-asr", "schema_version": 1,
                       "asr": {"model": "m", "beam": 5}, "transcripts": {"a/1": "c" * 64}}

VALUES: list[Any] = [None, True, False, 0, 1, -1, 2, 0.0, 0.01, 0.032, 0.0319, 1.5, 30,
                     "", "x", "synthetic_pause_handling", "pause_handling",
                     "synthetic_pause_handling/1", "synthetic_pause_handling/..", [], ["a"],
                     [1], {}, {"a": "b"}, {"a": 1}, {"output.wav": "x"}]


def mutations(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Every key of the document (to the depth of the samples' fields) removed, set to
    each of VALUES, and an unknown key added beside it."""
    found: list[dict[str, Any]] = []

    def at(path: tuple[Any, ...]) -> None:
        parent: Any = document
        for step in path[:-1]:
            parent = parent[step]
        variants: list[Any] = [*VALUES, "MISSING"]
        for value in variants:
            changed = copy.deepcopy(document)
            target = changed
            for step in path[:-1]:
                target = target[step]
            if value == "MISSING":
                if isinstance(target, dict):
                    del target[path[-1]]
                else:
                    continue
            else:
                target[path[-1]] = value
            found.append(changed)

    def walk(node: Any, path: tuple[Any, ...], depth: int) -> None:
        if isinstance(node, dict):
            extra = copy.deepcopy(document)
            target = extra
            for step in path:
                target = target[step]
            target["unknown_key"] = 1
            found.append(extra)
        items = (node.items() if isinstance(node, dict)
                 else enumerate(node) if isinstance(node, list) else [])
        for key, child in items:
            at((*path, key))
            if depth < 4:
                walk(child, (*path, key), depth + 1)

    walk(document, (), 0)
    return found


def schema_manifest(path: Path) -> tuple[str, dict[str, int], list[tuple[Any, ...]]] | None:
    try:
        revision, declared, samples = tree._schema_manifest(path)
    except InputError:
        return None
    return revision, declared, [(s.sample_id, s.subset, s.task, s.input_duration_s,
                                 s.eligible, s.reasons, s.files) for s in samples]


def schema_asr(path: Path) -> tuple[dict[str, Any], dict[str, str]] | None:
    from speecheval.core.schema import load
    from speecheval.fdb.common.tree_schema import AsrFile

    try:
        checked = load(AsrFile, path, what="asr.json")
    except InputError:
        return None
    return dict(checked.asr), dict(checked.transcripts)


def test_valid_files_are_read_without_the_schema() -> None:
    plain = tree_fast.plain_manifest(json.dumps(MANIFEST).encode())
    assert plain is not None
    revision, declared, samples = plain
    assert (revision, declared) == ("r1", MANIFEST["dataset"]["declared"])
    assert samples[2] == ("synthetic_user_interruption/3", "synthetic_user_interruption",
                          "user_interruption", 30.0, False, ("input_pacing",), {})
    assert tree_fast.plain_asr(json.dumps(ASR).encode()) == (ASR["asr"], ASR["transcripts"])


@pytest.mark.parametrize("kind", ["manifest", "asr"])
def test_the_plain_reader_agrees_with_the_schema_on_every_mutation(tmp_path: Path,
                                                                   kind: str) -> None:
    base = MANIFEST if kind == "manifest" else ASR
    plain_read = tree_fast.plain_manifest if kind == "manifest" else tree_fast.plain_asr
    schema_read = schema_manifest if kind == "manifest" else schema_asr
    path = tmp_path / f"{kind}.json"
    texts = [json.dumps(m) for m in mutations(base)]
    # a key written twice, a byte-order mark, bytes that are not UTF-8, NaN
    whole = json.dumps(base)
    texts += [whole[:-1] + ', "kind": "' + base["kind"] + '"}', "\ufeff" + whole,
              whole.replace('"schema_version": 1', '"schema_version": NaN'), "[]", "{"]
    accepted = 0
    for text in texts:
        path.write_text(text, encoding="utf-8")
        plain = plain_read(path.read_bytes())
        if kind == "manifest" and plain is not None:
            plain = (plain[0], plain[1], list(plain[2]))  # type: ignore[index]
        assert plain == schema_read(path), text
        accepted += plain is not None
    path.write_bytes(b'{"kind": "\xff"}')
    assert plain_read(path.read_bytes()) is None
    assert len(texts) > 150 and accepted > 20  # both outcomes were exercised
