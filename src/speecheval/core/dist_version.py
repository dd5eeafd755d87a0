"""The installed version of a distribution, as ``importlib.metadata.version`` gives it.

Why not that function alone: importing ``importlib.metadata`` brings the ``email``
parsers, ``zipfile`` and ``csv`` (some 10 ms on a quiet machine, more than a warm
``fdb10 unified-score`` spends reading its tree), and every provenance record asks for a
handful of versions. A distribution installed the usual way has one
``<name>-<version>.dist-info`` folder in the first ``sys.path`` folder that holds it, and
``importlib.metadata`` reads the first ``Version`` header of its ``METADATA``; so does
:func:`version` here. Anything less plain (an ``.egg-info``, two metadata folders for one
name, no ``Version`` header, a distribution found nowhere, a ``sys.path`` entry that is not
a folder, a finder on ``sys.meta_path`` besides the path finder that lists
distributions) is answered by ``importlib.metadata`` itself, so the answer is always the one it
gives (``tests/core/test_dist_version.py`` compares them).
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache
from importlib.machinery import PathFinder

_SEPARATORS = re.compile(r"[-_.]+")
_METADATA_SUFFIXES = (".dist-info", ".egg-info")


def version(distribution: str) -> str | None:
    """The installed version of ``distribution``; ``None`` when it is not installed.

    >>> version("click") == __import__("importlib.metadata").metadata.version("click")
    True
    """
    found = _listed_version(distribution)
    if found is not None:
        return found
    import importlib.metadata

    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def metadata_folder(distribution: str) -> str | None:
    """The ``.dist-info`` folder of ``distribution`` where it is the plain case (module
    doc): the one ``importlib.metadata`` would read; None where it is not plain, for the
    caller to ask ``importlib.metadata``."""
    if any(hasattr(finder, "find_distributions") and finder is not PathFinder
           for finder in sys.meta_path):
        return None  # another finder may name distributions first
    wanted = _normalized(distribution)
    for entry in sys.path:
        folder = entry or "."
        names = _children(folder)
        if names is None:
            return None  # a zip file or the like: importlib.metadata reads those
        matches = [name for name in names if name.endswith(_METADATA_SUFFIXES)
                   and _normalized(name.rpartition(".")[0].partition("-")[0]) == wanted]
        if matches:
            if len(matches) != 1 or not matches[0].endswith(".dist-info"):
                return None
            return os.path.join(folder, matches[0])
    return None


def _listed_version(distribution: str) -> str | None:
    """The version in the plain ``.dist-info`` folder of ``distribution``; None where
    there is none."""
    folder = metadata_folder(distribution)
    return None if folder is None else _version_header(os.path.join(folder, "METADATA"))


def _normalized(name: str) -> str:
    """A distribution name as the metadata folders compare it (PEP 503, ``_`` for runs of
    ``-``, ``_`` and ``.``; lower case)."""
    return _SEPARATORS.sub("_", name).lower()


@cache
def _children(folder: str) -> tuple[str, ...] | None:
    """The names in ``folder`` (once per process); None when it is not a folder."""
    try:
        return tuple(os.listdir(folder))
    except OSError:
        return None if os.path.exists(folder) else ()


def _version_header(path: str) -> str | None:
    """The first ``Version`` header of a ``METADATA`` file (the headers end at the
    first empty line); None when it has none or cannot be read."""
    try:
        with open(path, encoding="utf-8") as file:
            for line in file:
                if not line.strip():
                    return None
                key, colon, value = line.partition(":")
                if colon and key.lower() == "version":  # header names ignore case
                    return value.strip() or None
    except (OSError, UnicodeDecodeError):
        return None
    return None
