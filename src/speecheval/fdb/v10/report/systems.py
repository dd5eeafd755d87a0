"""Which system each tree on the page is: ``--tree NAME=PATH``, else the tree's own name.

A page compares systems, so each column must say which system it is, and a folder's
name (``tree``, ``tree (1)``) says nothing. The name comes from, in order: ``NAME=`` on
the command line; ``manifest.json``'s top-level ``system``; the agent the capture ran
(``capture.sources[].agent``, which ``reference-export`` records); the generator of a
built tree (``generator.name`` and its scale). A tree with none of these, or two trees
with the same name, is bad input: the page would not say which column is which.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ....core.errors import InputError
from ...common.tree import MANIFEST_FILE, tree_file


@dataclass(frozen=True)
class TreeSpec:
    """One ``--tree`` value: the tree's folder and the name given with it, if any."""

    path: Path
    name: str | None = None

    @classmethod
    def parse(cls, text: str) -> TreeSpec:
        """``NAME=PATH`` or a plain ``PATH`` (a path that is itself a folder wins, so a
        folder whose name contains ``=`` still works).

        >>> TreeSpec.parse("moshi=runs/a/tree")
        TreeSpec(path=PosixPath('runs/a/tree'), name='moshi')
        >>> TreeSpec.parse("runs/b/tree").name is None
        True
        """
        name, sep, path = text.partition("=")
        if not sep or Path(text).is_dir():
            return cls(Path(text))
        if not name.strip() or not path:
            raise InputError(f"--tree {text!r}: write NAME=PATH with a non-empty name "
                             "and path")
        return cls(Path(path), name.strip())


def _manifest_document(tree: Path) -> dict[str, Any]:
    path = tree_file(tree, MANIFEST_FILE)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}    # the scorer reports a missing or broken manifest in its own words
    return document if isinstance(document, dict) else {}


def recorded_name(tree: Path) -> str | None:
    """The system's name as the tree records it, or None."""
    document = _manifest_document(tree)
    system = document.get("system")
    if isinstance(system, str) and system.strip():
        return system.strip()
    capture = document.get("capture")
    sources = capture.get("sources") if isinstance(capture, dict) else None
    if isinstance(sources, list):
        agents = sorted({str(s["agent"]) for s in sources
                         if isinstance(s, dict) and s.get("agent")})
        if agents:
            return "+".join(agents)
    generator = document.get("generator")
    if isinstance(generator, dict) and generator.get("name"):
        scale = generator.get("scale")
        return f"{generator['name']} {scale}" if scale else str(generator["name"])
    return None


def system_names(specs: Sequence[TreeSpec]) -> list[str]:
    """Each tree's system name; a tree without one, or a name used twice, is bad input."""
    names = []
    for spec in specs:
        name = spec.name or recorded_name(spec.path)
        if name is None:
            raise InputError("the tree does not say which system it is (no system, "
                             "capture agent or generator in manifest.json): give it as "
                             "--tree NAME=PATH", path=spec.path)
        names.append(name)
    for index, name in enumerate(names):
        if name in names[:index]:
            first = specs[names.index(name)].path
            raise InputError(f"two trees are both named {name!r} ({first} and "
                             f"{specs[index].path}): name them with --tree NAME=PATH",
                             path=specs[index].path)
    return names
