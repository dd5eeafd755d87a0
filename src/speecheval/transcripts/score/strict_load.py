"""JSON or YAML documents read strictly: a repeated key is an error, not a silent override."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from ...core.errors import InputError
from ..formats._io import read_text


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a mapping key written twice."""


def _mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"key {key!r} appears twice", key_node.start_mark)
        seen.add(key)
    return dict(loader.construct_pairs(node, deep=True))


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"key {key!r} appears twice")
        result[key] = value
    return result


def load_document(path: Path) -> Any:
    """Parse ``.json`` as JSON and ``.yaml``/``.yml`` as YAML (safe loader, no tags)."""
    text = read_text(path, "manifest")
    suffix = path.suffix.lower()
    if suffix == ".json":
        try:
            return json.loads(text, object_pairs_hook=_json_pairs)
        except json.JSONDecodeError as exc:
            raise InputError(f"line {exc.lineno}: not valid JSON: {exc.msg}", path=path) from None
        except ValueError as exc:
            raise InputError(str(exc), path=path) from None
    if suffix in (".yaml", ".yml"):
        try:
            return yaml.load(text, Loader=_UniqueKeyLoader)
        except yaml.YAMLError as exc:
            raise InputError(f"not valid YAML: {exc}", path=path) from None
    raise InputError("manifest must be .json, .yaml or .yml", path=path)
