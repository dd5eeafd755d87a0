"""Atomic files and new-only output directories.

A run either leaves a complete output directory or none: files are written under a
temporary sibling directory that is renamed into place at the end, and an existing
destination is never overwritten.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import InputError


def _file_mode() -> int:
    """Permissions a plain ``open()`` would give a new file under the current umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, _file_mode())  # mkstemp creates 0600; outputs are for sharing
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    """UTF-8 text through :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"))


def refuse_existing(path: str | Path) -> Path:
    """Return ``path`` as a Path, or raise InputError if something is already there."""
    target = Path(path)
    if target.exists() or target.is_symlink():
        raise InputError("output already exists; outputs are never overwritten, "
                         "choose a new path", path=target)
    return target


@contextlib.contextmanager
def new_output_dir(path: str | Path) -> Iterator[Path]:
    """Yield a staging directory that becomes ``path`` only if the block succeeds.

    The destination must not exist. On any exception the staging directory is removed,
    so a failed run leaves nothing half-written behind.
    """
    target = refuse_existing(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial",
                                    dir=target.parent))
    try:
        yield staging
        if target.exists():
            raise InputError("output appeared while the run was writing it", path=target)
        os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
