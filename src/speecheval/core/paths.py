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
:func:`folders_checked_once` (a scorer reading a whole tree), a folder already found to
be a plain folder is not looked at again, so each file costs one ``lstat``, not one per
component of its path.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path, PurePath

from .errors import InputError

_plain_folders: ContextVar[set[str] | None] = ContextVar("plain_folders", default=None)


@contextmanager
def folders_checked_once() -> Iterator[None]:
    """Within the block, :func:`resolve_inside` remembers the folders it found to exist
    and not be symbolic links, and does not check them again (module doc). For a reader
    of many files under the same folders that takes them as they are for its duration."""
    token = _plain_folders.set(set())
    try:
        yield
    finally:
        _plain_folders.reset(token)


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
    known = _plain_folders.get()
    path = os.fspath(root)
    if known is not None and len(parts) > 1:
        folder = os.path.join(path, *parts[:-1])
        if folder in known:  # checked before in this block: only the last component is new
            return _exists_not_linked(os.path.join(folder, parts[-1]))
    for index, part in enumerate(parts):
        path = os.path.join(path, part)
        if not _exists_not_linked(path):
            return False
        if known is not None and index < len(parts) - 1:
            known.add(path)
    return True


def _exists_not_linked(path: str) -> bool:
    try:
        return not stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False
