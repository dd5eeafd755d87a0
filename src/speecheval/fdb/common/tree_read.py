"""Reading a reference tree's ``manifest.json`` and ``asr.json`` (``tree``'s types).

Why a module of its own: it is the one place that chooses between the two readers of
the rules of ``tree_rules``. A well-formed file is accepted by ``tree_fast`` in plain
Python; anything it doubts goes through the pydantic schema (``tree_schema``), which
words the error with the file, key and line. Neither reader imports this module, so
the tree modules form no import circle.
"""

from __future__ import annotations

from pathlib import Path

from ...core.errors import InputError
from ...core.hashing import sha256_bytes
from .tree import (
    ASR_FILE,
    MANIFEST_FILE,
    AsrIndex,
    Manifest,
    ManifestSample,
    tree_file,
)
from .tree_fast import plain_asr, plain_manifest


def _require(condition: bool, problem: str, path: Path, sample_id: str | None = None) -> None:
    if not condition:
        raise InputError(problem, path=path, sample_id=sample_id)


def load_manifest(tree: Path) -> Manifest:
    """Read and check ``TREE/manifest.json`` (schema: ``tree_schema.ManifestFile``; a
    well-formed file is accepted by ``tree_fast`` without importing pydantic), then the
    checks across samples: no sample listed twice, none beyond its subset's size."""
    path = tree_file(tree, MANIFEST_FILE)
    if not path.is_file():
        raise InputError("manifest.json is missing", path=path)
    data = path.read_bytes()
    plain = plain_manifest(data)
    if plain is not None:
        revision, declared, fields = plain
        samples = tuple(ManifestSample(*row) for row in fields)
    else:
        revision, declared, samples = _schema_manifest(path)
    seen: set[str] = set()
    per_subset: dict[str, int] = {}
    for sample in samples:
        _require(sample.sample_id not in seen, "sample listed twice", path, sample.sample_id)
        seen.add(sample.sample_id)
        per_subset[sample.subset] = per_subset.get(sample.subset, 0) + 1
    for subset, count in per_subset.items():
        _require(subset in declared, f"dataset.declared has no size for subset {subset}", path)
        _require(count <= declared[subset],
                 f"{count} samples selected from {subset}, more than its declared "
                 f"{declared[subset]}", path)
    return Manifest(path=path, sha256=sha256_bytes(data), revision=revision,
                    declared=declared, samples=samples)


def _schema_manifest(path: Path) -> tuple[str, dict[str, int], tuple[ManifestSample, ...]]:
    """``manifest.json`` through the schema: what ``tree_fast`` left to it (an InputError
    naming the key and line for a broken rule)."""
    from ...core.schema import load
    from .tree_schema import ManifestFile

    data = load(ManifestFile, path, what="manifest.json", sample_key="sample_id")
    samples = tuple(ManifestSample(sample_id=s.sample_id, subset=s.subset, task=s.task,
                                   input_duration_s=s.input_duration_s, eligible=s.eligible,
                                   reasons=s.reasons, files=dict(s.files))
                    for s in data.samples)
    return data.dataset.revision, dict(data.dataset.declared), samples


def load_asr(tree: Path) -> AsrIndex:
    """Read and check ``TREE/asr.json`` (schema: ``tree_schema.AsrFile``, or ``tree_fast``
    for a well-formed file); a tree without it cannot be scored."""
    path = tree_file(tree, ASR_FILE)
    if not path.is_file():
        raise InputError("the tree has no asr.json; transcribe it first "
                         "(speecheval fdb10 reference-asr)", path=path)
    data = path.read_bytes()
    plain = plain_asr(data)
    if plain is None:
        from ...core.schema import load
        from .tree_schema import AsrFile

        checked = load(AsrFile, path, what="asr.json")
        plain = dict(checked.asr), dict(checked.transcripts)
    identity, transcripts = plain
    return AsrIndex(path=path, sha256=sha256_bytes(data), identity=identity,
                    transcripts=transcripts)
