"""YAML loading that remembers line numbers, so a scenario error can name its line.

PyYAML's node marks carry the line of every key; this loader keeps them on the mappings
it builds (:class:`LineDict`) and refuses duplicate keys, which plain ``safe_load``
silently resolves to the last value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..core.errors import InputError


class LineDict(dict[str, Any]):
    """A mapping from YAML with the 1-based line of itself and of each key."""

    line: int = 0
    key_lines: dict[str, int]


class _LineLoader(yaml.SafeLoader):
    """SafeLoader that builds :class:`LineDict` mappings and rejects duplicate keys."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    out = LineDict()
    out.line = node.start_mark.line + 1
    out.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if not isinstance(key, str):
            raise yaml.constructor.ConstructorError(
                None, None, f"line {line}: key {key!r} is not a string", key_node.start_mark)
        if key in out:
            raise yaml.constructor.ConstructorError(
                None, None, f"line {line}: duplicate key {key!r}", key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[key] = line
    return out


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml_with_lines(path: Path) -> Any:
    """Parse ``path``; unreadable files and YAML syntax errors become InputError."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read scenario: {exc.strerror}", path=path) from exc
    except UnicodeDecodeError as exc:
        raise InputError("scenario is not UTF-8 text", path=path) from exc
    try:
        return yaml.load(text, Loader=_LineLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {' '.join(str(exc).split())}", path=path) from exc
