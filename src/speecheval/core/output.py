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


def atomic_write_bytes(path: str | Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory.

    ``durable=False`` skips the ``fsync`` before the rename, for files whose reader
    checks them and can do without them (cache entries): a crash may then leave an
    empty or cut entry, never a file that mixes two writes; the fsync costs milliseconds
    a file, which hundreds of small entries pay in full."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp_name, _file_mode())  # mkstemp creates 0600; outputs are for sharing
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def atomic_write_text(path: str | Path, text: str, *, durable: bool = True) -> None:
    """UTF-8 text through :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable)


def refuse_existing(path: str | Path) -> Path:
    """Return ``path`` as a Path, or raise InputError if something is already there."""
    target = Path(path)
    if target.exists() or target.is_symlink():
        raise InputError("output already exists; outputs are never overwritten, "
                         "choose a new path", path=target)
    return target


def check_new_output_dir(path: str | Path) -> Path:
    """Refuse, before any work, an output directory that exists or could not be created.

    For commands whose work is expensive or cannot be repeated (a live session), so that
    a bad ``--out`` (its parent a file, ``/proc/x``, a read-only place) is a one-line
    error up front rather than a failure after the work. It creates a probe directory
    where the output's missing parents would start and removes it again: nothing stays.
    """
    target = refuse_existing(path)
    ancestor = next(p for p in Path(os.path.abspath(target)).parents
                    if p.exists() or p.is_symlink())
    if not ancestor.is_dir():
        raise InputError(f"cannot create the output directory: {ancestor} is not a directory",
                         path=target)
    try:
        os.rmdir(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".probe", dir=ancestor))
    except OSError as exc:
        raise _cannot_create(target, exc) from None
    return target


def create_new_output_dir(path: str | Path) -> Path:
    """Create the output directory ``path`` (and its parents), which must not exist.

    The creation itself is the check that counts: two runs started on one ``--out`` at
    once both pass :func:`check_new_output_dir`, and the one whose ``mkdir`` comes second
    gets an InputError naming the directory, while the first goes on undisturbed.
    """
    target = Path(path)
    try:
        target.mkdir(parents=True)
    except FileExistsError:
        raise InputError("output already exists: another run created it first; outputs "
                         "are never shared or overwritten, choose a new path",
                         path=target) from None
    except OSError as exc:
        raise _cannot_create(target, exc) from None
    return target


def _missing_parents(target: Path) -> list[Path]:
    """Ancestors of ``target`` that do not exist yet, deepest first."""
    missing = []
    for parent in Path(os.path.abspath(target)).parents:
        if parent.exists() or parent.is_symlink():
            break
        missing.append(parent)
    return missing


def _cannot_create(target: Path, exc: OSError) -> InputError:
    """The one-line error for a refused directory (without the random staging name)."""
    reason = exc.strerror or type(exc).__name__
    for parent in Path(os.path.abspath(target)).parents:
        if parent.exists():
            reason = (f"{parent} is not a directory" if not parent.is_dir()
                      else f"{reason} (in {parent})")
            break
    return InputError(f"cannot create the output directory: {reason}", path=target)


@contextlib.contextmanager
def new_output_dir(path: str | Path) -> Iterator[Path]:
    """Yield a staging directory that becomes ``path`` only if the block succeeds.

    The destination must not exist. On any exception the staging directory is removed,
    and so is every parent directory created for it that is still empty, so a failed run
    leaves nothing half-written behind. A directory the system refuses to create is an
    InputError naming it.
    """
    target = refuse_existing(path)
    created_parents = _missing_parents(target)
    try:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial",
                                            dir=target.parent))
        except OSError as exc:
            raise _cannot_create(target, exc) from None
        try:
            yield staging
            if target.exists():
                raise InputError("output appeared while the run was writing it", path=target)
            os.rename(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    except BaseException:
        for parent in created_parents:
            with contextlib.suppress(OSError):
                parent.rmdir()  # only if still empty
        raise
