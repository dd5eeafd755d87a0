"""Atomic files and output directories that are new or replaced on request.

A run either leaves a complete output directory or none: files are written under a
temporary sibling directory that is renamed into place at the end. An existing
destination is never overwritten silently: only inside :func:`replacing` (a command's
``--force``) is it replaced, and then atomically (the new output is complete beside it
before the old one is moved aside), so a run that fails leaves the previous output as
it was.
"""

from __future__ import annotations

import contextlib
import contextvars
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


FORCE_HELP = ("Replace an existing output of this command: the new one is written beside "
              "it and renamed into place, so a failed run leaves the old one as it was.")

#: What a command's own output looks like: for a directory, a file it always holds
#: (``unified.json``); for a file output, the endings its name may have (``.html``).
OutputShape = str | tuple[str, ...]

#: Absolute paths the running command may replace, each with its OutputShape; set only
#: by :func:`replacing`.
_REPLACEABLE: contextvars.ContextVar[tuple[tuple[Path, OutputShape], ...]] = (
    contextvars.ContextVar("speecheval_replaceable", default=()))


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path))


@contextlib.contextmanager
def replacing(path: str | Path, *, force: bool, shape: OutputShape) -> Iterator[Path]:
    """Within the block, let the writers here replace ``path`` if ``force`` is true.

    Only that exact path becomes replaceable, and only if it is what the command itself
    writes (``shape``): for a directory output, a file every such output holds
    (``"unified.json"``); for a file output, the endings its name may have
    (``(".html",)``), and it must be a plain file. Anything else, a symbolic link, the
    file-system root, the home directory or the working directory (or one of its
    parents) is refused with an InputError before any work. Without ``force`` the block
    runs unchanged.
    """
    target = Path(path)
    if not force:
        yield target
        return
    if target.exists() or target.is_symlink():
        _check_replaceable(target, shape)
    token = _REPLACEABLE.set((*_REPLACEABLE.get(), (_absolute(target), shape)))
    try:
        yield target
    finally:
        _REPLACEABLE.reset(token)


def _check_replaceable(target: Path, shape: OutputShape) -> None:
    """Refuse to replace what the command did not write (see :func:`replacing`)."""
    absolute = _absolute(target)
    if target.is_symlink():
        raise InputError("--force replaces only an output this command wrote, not a "
                         "symbolic link", path=target)
    protected = {Path(absolute.anchor), _absolute(Path.home()), _absolute(Path.cwd()),
                 *_absolute(Path.cwd()).parents}
    if absolute in protected:
        raise InputError("--force refuses to replace the root, the home directory or "
                         "the working directory (or a folder holding it)", path=target)
    if isinstance(shape, tuple):
        if not target.is_file() or not target.name.endswith(shape):
            raise InputError(f"--force replaces only a file this command writes (a plain "
                             f"{' or '.join(shape)} file); this is not one, left as it is",
                             path=target)
    elif not target.is_dir() or not (target / shape).is_file():
        raise InputError(f"--force replaces only an output this command wrote, and this "
                         f"has no {shape}: not recognised as one, left as it is",
                         path=target)


def _may_replace(target: Path) -> bool:
    """Whether ``target`` exists and the running command was asked to replace it."""
    markers = dict(_REPLACEABLE.get())
    absolute = _absolute(target)
    if absolute not in markers:
        return False
    _check_replaceable(target, markers[absolute])  # it may have changed since the start
    return True


def refuse_existing(path: str | Path) -> Path:
    """Return ``path`` as a Path, or raise InputError if something is already there
    (unless :func:`replacing` made it replaceable)."""
    target = Path(path)
    if (target.exists() or target.is_symlink()) and not _may_replace(target):
        raise InputError("output already exists; outputs are never overwritten, "
                         "choose a new path or give --force to replace it", path=target)
    return target


def check_new_output_dir(path: str | Path) -> Path:
    """Refuse, before any work, an output directory that exists or could not be created.

    For commands whose work is expensive or cannot be repeated (a live session), so that
    a bad ``--out`` (its parent a file, ``/proc/x``, a read-only place) is a one-line
    error up front rather than a failure after the work. It creates a probe directory
    where the output's missing parents would start and removes it again: nothing stays.
    """
    target = refuse_existing(path)
    if target.exists():
        return target  # replaceable: its parent exists, and the new output goes beside it
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


def _swap_into_place(staging: Path, target: Path) -> None:
    """Replace the directory ``target`` by the complete ``staging`` beside it: the old
    one is moved aside, the new one renamed into place, then the old one removed. If the
    second rename fails the old one is put back."""
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".replaced",
                                  dir=target.parent))
    old = aside / target.name
    os.rename(target, old)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(old, target)
        shutil.rmtree(aside, ignore_errors=True)
        raise
    shutil.rmtree(aside, ignore_errors=True)


@contextlib.contextmanager
def new_run_dir(path: str | Path) -> Iterator[Path]:
    """The directory a resumable run writes in place: a new one is created at ``path``
    and yielded (a failure leaves it, to be resumed); one that :func:`replacing` lets the
    run replace is written beside it instead and swapped in when the block succeeds
    (:func:`new_output_dir`), so the previous run stays whole until then."""
    target = Path(path)
    if (target.exists() or target.is_symlink()) and _may_replace(target):
        with new_output_dir(target) as staging:
            yield staging
    else:
        yield create_new_output_dir(target)


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
            if target.exists() or target.is_symlink():
                if not _may_replace(target):
                    raise InputError("output appeared while the run was writing it",
                                     path=target)
                _swap_into_place(staging, target)
            else:
                os.rename(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    except BaseException:
        for parent in created_parents:
            with contextlib.suppress(OSError):
                parent.rmdir()  # only if still empty
        raise
