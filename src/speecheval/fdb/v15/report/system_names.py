"""What each system is called on the page: ``--tree NAME=PATH``, else the tree's manifest.

Why not the folder name: trees are exported as ``tree``, ``tree (1)``, ``run3/tree``, and a
page whose columns read ``tree`` and ``tree (2)`` says nothing about which model is which.
The name comes, in this order, from ``--tree NAME=PATH``, from the ``system`` key of the
tree's ``manifest.json``, or from the one agent every recorded run of the tree names
(``capture.sources[].agent``, written by ``fdb15 export``). A tree that gives none of
these, and two systems with one name, are bad input: the error says to name them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from ....core.errors import InputError

MANIFEST = "manifest.json"


def split_tree_option(value: str) -> tuple[str | None, Path]:
    """``NAME=PATH`` as (name, path); a plain path as (None, path). A ``=`` inside a path
    (after a ``/``) is part of the path.

    >>> split_tree_option("moshi=runs/a"), split_tree_option("runs/a=b")
    (('moshi', PosixPath('runs/a')), (None, PosixPath('runs/a=b')))
    """
    name, sep, path = value.partition("=")
    if sep and name and "/" not in name and path:
        return name.strip(), Path(path)
    return None, Path(value)


def _manifest_name(tree: Path) -> str | None:
    path = tree / MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"not valid JSON: {exc}", path=path) from None
    if not isinstance(manifest, dict):
        return None
    system = manifest.get("system")
    if isinstance(system, str) and system.strip():
        return system.strip()
    sources = (manifest.get("capture") or {}).get("sources") or []
    agents = {str(s["agent"]) for s in sources if isinstance(s, dict) and s.get("agent")}
    return agents.pop() if len(agents) == 1 else None


def system_name(explicit: str | None, tree: Path) -> str:
    """The system's name (see the module docstring); bad input when there is none."""
    if explicit:
        return explicit
    name = _manifest_name(tree)
    if name is None:
        raise InputError("the tree names no system (no manifest.json 'system' and no single "
                         "recorded agent): give --tree NAME=PATH", path=tree)
    return name


def require_unique(names: Sequence[str], trees: Sequence[Path]) -> None:
    """Two systems with one name are bad input (their columns could not be told apart)."""
    for index, name in enumerate(names):
        if name in names[:index]:
            first = names.index(name)
            raise InputError(f"two systems are called {name!r} ({trees[first]} and "
                             f"{trees[index]}): give each --tree NAME=PATH a different NAME")
