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
costs one listing per folder, not an ``lstat`` per file and folder; once a file's
folder, as the relative path writes it, was found plain below the root, another file
written in that folder costs one lookup of its own entry. The same listing
answers :func:`is_file` (the entry's type), so a reader's "is it there" check costs no
``stat`` either.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from .errors import InputError

_listings: ContextVar[_Checked | None] = ContextVar("listings", default=None)


@contextmanager
def folders_checked_once() -> Iterator[None]:
    """Within the block, :func:`resolve_inside` lists each folder once and takes its
    entries as they were then (module doc). For a reader of many files under the same
    folders that takes them as they are for its duration."""
    token = _listings.set(_Checked())
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
    checked = _listings.get()
    root_text = os.fspath(root)
    folder_text, _, name = text.rpartition("/")
    if checked is not None:
        # the folder above the file was found plain below this root for an earlier file
        # written the same way: only the file's own entry is left to look up (a sample's
        # files share their folder)
        folder = checked.plain_folders.get((root_text, folder_text))
        if folder is not None and name not in _NOT_NAMES:
            return _listed_not_linked(checked.listings, folder, name)
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if ".." in parts:
        return False
    path = root_text
    if checked is None:
        for part in parts:
            path = os.path.join(path, part)
            if not _exists_not_linked(path):
                return False
        return True
    for index, part in enumerate(parts):
        if index == len(parts) - 1 and part == name:  # not "a/b/" nor "a/b/.": b's folder
            checked.plain_folders[(root_text, folder_text)] = path
        if not _listed_not_linked(checked.listings, path, part):
            return False
        path = os.path.join(path, part)
    return True


# a last component that :func:`_plainly_inside`'s shortcut leaves to the full walk (empty,
# ``.``, ``..``: not a name in the folder's listing)
_NOT_NAMES = frozenset(("", ".", ".."))


def is_file(path: Path) -> bool:
    """``path.is_file()``, answered from its folder's listing inside
    :func:`folders_checked_once` (the entry's type from ``scandir``, no ``stat`` for an
    entry that is not a link)."""
    checked = _listings.get()
    if checked is None:
        return path.is_file()
    folder, _, name = os.fspath(path).rpartition("/")  # a folder "" or "a/" lists as well
    listing = checked.listings.get(folder)
    if listing is None:
        listing = checked.listings[folder] = _listing(folder)
    return name in listing.files if listing.listed else path.is_file()


def _exists_not_linked(path: str) -> bool:
    try:
        return not stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _listed_not_linked(listings: dict[str, _Listing], folder: str, name: str) -> bool:
    """:func:`_exists_not_linked` of ``folder / name``, from ``folder``'s listing (made
    on first use)."""
    listing = listings.get(folder)
    if listing is None:
        listing = listings[folder] = _listing(folder)
    return listing.not_linked.get(name, False)


@dataclass
class _Checked:
    """What :func:`folders_checked_once` has seen: each folder's listing, and, by
    ``(root, folder as a relative path wrote it)``, the folders whose every component
    below that root was found to exist and not to be a link, with their paths (keyed by
    the root too: a folder plain below one root may lie under a link below another)."""

    listings: dict[str, _Listing] = field(default_factory=dict)
    plain_folders: dict[tuple[str, str], str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Listing:
    """A folder's entries as ``scandir`` gave them: whether each is not a symbolic link,
    and the names that are files (``is_file()``: a link is followed)."""

    not_linked: dict[str, bool]
    files: frozenset[str]
    listed: bool = True


def _listing(folder: str) -> _Listing:
    """The listing of ``folder`` (empty if it cannot be listed: its paths then take the
    full resolution, and :func:`is_file` asks the file itself)."""
    try:
        with os.scandir(folder) as scanned:
            entries = list(scanned)
        return _Listing({entry.name: not entry.is_symlink() for entry in entries},
                        frozenset(entry.name for entry in entries if _entry_is_file(entry)))
    except OSError:
        return _Listing({}, frozenset(), listed=False)


def _entry_is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False
