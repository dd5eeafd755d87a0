"""Relative paths that must stay inside the folder they are relative to.

A reference tree or a manifest names its files by paths relative to its own folder. A
symbolic link (``output.wav -> /etc/passwd``, a sample folder linked elsewhere) or a
``..`` would make such a path read any file on the machine, which would then be hashed,
decoded or quoted in an error as if it were part of the input. Every relative path read
from such an input goes through :func:`resolve_inside`, which resolves symbolic links and
refuses a real path outside the root's real path. Links that stay inside the root (two
samples sharing one file) are fine.

Scoring a tree checks thousands of paths, so the common case is answered without
resolving anything: a relative path with no ``..`` whose every component below the root
exists and is not a symbolic link (one ``lstat`` each) has the real path ``real(root) /
relative``, inside the root whatever the root itself resolves to. Anything else (a ``..``,
a link, a missing component, an unreadable folder) takes the full resolution. Inside
:func:`folders_checked_once` (a scorer reading a whole tree), each folder is listed once
(one ``scandir``, whose entries say whether they are links without a ``stat`` each) and
every component is looked up in its folder's listing: a tree of a few thousand files
costs one listing per folder, not an ``lstat`` per file and folder.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path, PurePath

from .errors import InputError

_listings: ContextVar[dict[str, dict[str, bool]] | None] = ContextVar("listings",
                                                                      default=None)


@contextmanager
def folders_checked_once() -> Iterator[None]:
    """Within the block, :func:`resolve_inside` lists each folder once and takes its
    entries as they were then (module doc). For a reader of many files under the same
    folders that takes them as they are for its duration."""
    token = _listings.set({})
    try:
        yield
    finally:
        _listings.reset(token)


def resolve_inside(root: Path, relative: str | PurePath, *, sample_id: str | None = None,
                   root_name: str = "the tree") -> Path:
    """``root / relative``, after checking that its real path lies inside ``root``'s.

    The path returned is the lexical one (so messages show what the input wrote); a
    missing file passes, for the caller to report. ``root_name`` says in the error what
    the root is.

    >>> resolve_inside(Path("tree"), "a/output.wav")
    PosixPath('tree/a/output.wav')
    >>> resolve_inside(Path("tree"), "../x.wav", sample_id="a")
    Traceback (most recent call last):
    ...
    speecheval.core.errors.InputError: sample a: tree/../x.wav: ...
    """
    candidate = root / relative
    if _plainly_inside(root, relative):
        return candidate
    try:
        real_root = root.resolve()
        real = candidate.resolve()
    except (OSError, RuntimeError) as exc:   # RuntimeError: a symbolic link loop
        raise InputError(f"cannot resolve the path: {exc}", path=candidate,
                         sample_id=sample_id) from exc
    if PurePath(relative).is_absolute() or not real.is_relative_to(real_root):
        raise InputError(f"resolves to {real}, outside {root_name} ({real_root}); files "
                         f"must lie inside it (symbolic links included)", path=candidate,
                         sample_id=sample_id)
    return candidate


def _plainly_inside(root: Path, relative: str | PurePath) -> bool:
    """True when ``relative`` is relative, has no ``..``, and every component below
    ``root`` exists and is not a symbolic link: then its real path is ``real(root) /
    relative`` (module doc). False means "resolve it fully", not "outside".

    Plain string work (empty and ``.`` components dropped, as :class:`PurePath` does):
    this runs for every file of every sample."""
    text = os.fspath(relative)
    if text.startswith("/"):
        return False
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if ".." in parts:
        return False
    listings = _listings.get()
    path = os.fspath(root)
    for part in parts:
        plain = (_exists_not_linked(os.path.join(path, part)) if listings is None
                 else _listed_not_linked(listings, path, part))
        if not plain:
            return False
        path = os.path.join(path, part)
    return True


def _exists_not_linked(path: str) -> bool:
    try:
        return not stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _listed_not_linked(listings: dict[str, dict[str, bool]], folder: str, name: str) -> bool:
    """:func:`_exists_not_linked` of ``folder / name``, from ``folder``'s listing (made
    on first use)."""
    listing = listings.get(folder)
    if listing is None:
        listing = listings[folder] = _listing(folder)
    return listing.get(name, False)


def _listing(folder: str) -> dict[str, bool]:
    """Whether each entry of ``folder`` is not a symbolic link (none if it cannot be
    listed: its paths then take the full resolution)."""
    try:
        with os.scandir(folder) as entries:
            return {entry.name: not entry.is_symlink() for entry in entries}
    except OSError:
        return {}
