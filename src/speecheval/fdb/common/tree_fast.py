"""``manifest.json`` and ``asr.json`` accepted in plain Python when they are well formed.

Why: the schemas of ``tree_schema`` go through pydantic, whose import and model building
cost more than everything else a warm ``unified-score`` does
(``benchmarks/fdb10_tree_read_speed.py`` measures both paths in the same run). The
functions here check the JSON types and apply the rules of ``tree_rules``, the ones the
schema's validators call, to the parsed file; they return its content when every rule
holds, and None on any doubt (a broken rule, a repeated key, a file that is not UTF-8
JSON, a non-finite number). On None the caller validates with the schema, which words
the error (file, key, line, sample) as before, so a valid file never imports pydantic
and an invalid one gets the schema's message. Nothing is accepted here that the schema refuses:
``tests/fdb10/test_tree_fast.py`` checks it on many mutated files against the schema.
"""

from __future__ import annotations

import json
import math
from typing import Any

from . import tree_rules
from .tree import ASR_KIND, MANIFEST_KIND
from .tree_rules import SAMPLE_KEYS, TRACE_LISTS, TRACE_RECORDS

_ALLOWED_SAMPLE_KEYS = SAMPLE_KEYS | set(TRACE_RECORDS) | set(TRACE_LISTS)


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


def _holds(problem: str | None) -> None:
    """A rule of ``tree_rules`` broken: the schema words it."""
    _require(problem is None)


def _header(data: Any, kind: str) -> None:
    _require(isinstance(data, dict) and _is_str(data.get("kind"))
             and _is_int(data.get("schema_version")))
    _holds(tree_rules.kind_problem(data["kind"], kind))
    _holds(tree_rules.version_problem(data["schema_version"]))


def _sample(item: Any) -> tuple[str, str, str, float, bool, tuple[str, ...], dict[str, str]]:
    """One sample's fields after every rule of ``tree_schema.SampleEntry``."""
    _require(isinstance(item, dict) and item.keys() >= SAMPLE_KEYS
             and item.keys() <= _ALLOWED_SAMPLE_KEYS)
    sample_id, subset, task = item["sample_id"], item["subset"], item["task"]
    duration, eligible = item["input_duration_s"], item["eligible"]
    reasons, files = item["reasons"], item["files"]
    _require(_is_str(sample_id) and _is_str(subset) and _is_str(task)
             and isinstance(eligible, bool) and _str_list(reasons) and _str_map(files))
    _require(_is_int(duration) or isinstance(duration, float))
    duration = float(duration)  # as the schema's strict float takes a JSON integer
    _require(math.isfinite(duration))
    _holds(tree_rules.subset_problem(subset))
    _holds(tree_rules.duration_problem(duration))
    _holds(tree_rules.sample_problem(sample_id, subset, task, eligible, tuple(reasons),
                                     files))
    for key in TRACE_RECORDS:
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
        _require(all(_is_int(size) for size in declared.values()))
        _holds(tree_rules.declared_problem(declared))
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
