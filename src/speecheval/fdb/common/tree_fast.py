"""``manifest.json`` and ``asr.json`` accepted in plain Python when they are well formed.

Why: the schemas of ``tree_schema`` go through pydantic, whose import and model building
cost more than everything else a warm ``unified-score`` does. The functions here apply
the same rules to the parsed file and return its content when every rule holds, and None
on any doubt (a broken rule, a repeated key, a file that is not UTF-8 JSON, a non-finite
number). On None the caller validates with the schema, which words the error (file, key,
line, sample) as before, so a valid file never imports pydantic and an invalid one gets
the schema's message. Nothing is accepted here that the schema refuses:
``tests/fdb10/test_tree_fast.py`` checks it on many mutated files against the schema,
which stays the definition.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ...core.timebase import to_us
from .tree import (
    ANNOTATION_FILES,
    ASR_KIND,
    MANIFEST_KIND,
    OUTPUT_WAV,
    SCHEMA_VERSION,
    SILERO_WINDOW_S,
    SUBSET_TASKS,
)

_SAMPLE_KEYS = frozenset({"sample_id", "subset", "task", "input_duration_s", "eligible",
                          "reasons", "files"})
_OPTIONAL_RECORDS = ("capture", "playout", "pacing")
_OPTIONAL_LISTS = ("eligibility_details", "faults_after_t")
_ALLOWED_SAMPLE_KEYS = _SAMPLE_KEYS | set(_OPTIONAL_RECORDS) | set(_OPTIONAL_LISTS)
_MIN_DURATION_US = to_us(SILERO_WINDOW_S)


class _Doubt(Exception):
    """The file may break a rule: let the schema decide and word it."""


def parse_plain_json(data: bytes) -> Any:
    """The JSON value of UTF-8 bytes (a leading BOM dropped, as the schema's reader does);
    raises ``_Doubt`` for anything else or a key repeated in an object."""
    def refuse_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            raise _Doubt
        return result

    try:
        return json.loads(data.decode("utf-8-sig"), object_pairs_hook=refuse_repeats)
    except (UnicodeDecodeError, ValueError) as exc:
        raise _Doubt from exc


def _require(condition: bool) -> None:
    if not condition:
        raise _Doubt


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _str_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _header(data: Any, kind: str) -> None:
    _require(isinstance(data, dict) and data.get("kind") == kind and _is_str(data["kind"])
             and _is_int(data.get("schema_version"))
             and data["schema_version"] == SCHEMA_VERSION)


def _sample(item: Any) -> tuple[str, str, str, float, bool, tuple[str, ...], dict[str, str]]:
    """One sample's fields after every rule of ``tree_schema.SampleEntry``."""
    _require(isinstance(item, dict) and item.keys() >= _SAMPLE_KEYS
             and item.keys() <= _ALLOWED_SAMPLE_KEYS)
    sample_id, subset, task = item["sample_id"], item["subset"], item["task"]
    duration, eligible = item["input_duration_s"], item["eligible"]
    reasons, files = item["reasons"], item["files"]
    _require(_is_str(sample_id) and _is_str(subset) and subset in SUBSET_TASKS
             and _is_str(task) and task == SUBSET_TASKS[subset]
             and isinstance(eligible, bool) and _str_list(reasons) and _str_map(files))
    _require(_is_int(duration) or isinstance(duration, float))
    duration = float(duration)  # as the schema's strict float takes a JSON integer
    _require(math.isfinite(duration) and duration > 0 and to_us(duration) >= _MIN_DURATION_US)
    parts = sample_id.split("/")
    _require(len(parts) == 2 and parts[0] == subset and parts[1] not in ("", ".", ".."))
    _require(bool(reasons) != eligible)
    if eligible:
        annotation = ANNOTATION_FILES[task]
        _require(OUTPUT_WAV in files and (annotation is None or annotation in files))
    for key in _OPTIONAL_RECORDS:
        _require(item.get(key) is None or isinstance(item[key], dict))
    _require(item.get("eligibility_details") is None or _str_list(item["eligibility_details"]))
    _require(item.get("faults_after_t") is None or isinstance(item["faults_after_t"], list))
    return sample_id, subset, task, duration, eligible, tuple(reasons), dict(files)


def plain_manifest(data: bytes) -> tuple[str, dict[str, int], list[tuple[Any, ...]]] | None:
    """The revision, declared sizes and samples (the fields of ``ManifestSample``, in
    order) of a ``manifest.json`` that meets every rule of ``tree_schema.ManifestFile``;
    None when the schema must decide."""
    try:
        document = parse_plain_json(data)
        _header(document, MANIFEST_KIND)
        dataset, samples = document.get("dataset"), document.get("samples")
        _require(isinstance(dataset, dict) and dataset.keys() == {"revision", "declared"}
                 and _is_str(dataset["revision"]) and isinstance(dataset["declared"], dict)
                 and isinstance(samples, list))
        declared = dataset["declared"]
        _require(all(subset in SUBSET_TASKS and _is_int(size) and size >= 0
                     for subset, size in declared.items()))
        return dataset["revision"], dict(declared), [_sample(item) for item in samples]
    except _Doubt:
        return None


def plain_asr(data: bytes) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The transcriber's identity and the transcript hashes of an ``asr.json`` that meets
    every rule of ``tree_schema.AsrFile``; None when the schema must decide."""
    try:
        document = parse_plain_json(data)
        _header(document, ASR_KIND)
        identity, transcripts = document.get("asr"), document.get("transcripts")
        _require(isinstance(identity, dict) and _str_map(transcripts))
        return dict(identity), dict(transcripts)
    except _Doubt:
        return None
