"""The optional parts of an install: which extra brings which package, and the one error a
command gives when the package it needs is missing.

A plain ``pip install speecheval`` scores transcripts and runs sessions against the mock
agent; Silero, Whisper, the bundled espeak-ng library, PyAV, aiortc and Ray come with the
extras named in ``pyproject.toml`` (docs/install.md). A command that reaches a missing one
stops with exit 2 and one line that names the extra, never a traceback:

>>> error = missing("Silero", "onnxruntime", "fdb")
>>> print(error)
Silero needs onnxruntime, which is not installed: install it with pip install 'speecheval[fdb]'
>>> error.exit_code
2
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from .errors import InputError


class MissingExtra(InputError):
    """A package of an extra is not installed; the message says which extra brings it."""

    def __init__(self, needed_for: str, package: str, extra: str) -> None:
        self.package, self.extra = package, extra
        super().__init__(f"{needed_for} needs {package}, which is not installed: "
                         f"install it with {install_line(extra)}")


def install_line(extra: str) -> str:
    """The pip command that installs ``extra`` (quoted for a POSIX shell)."""
    return f"pip install 'speecheval[{extra}]'"


def missing(needed_for: str, package: str, extra: str) -> MissingExtra:
    """The error for ``package`` (of ``extra``) missing when ``needed_for`` runs."""
    return MissingExtra(needed_for, package, extra)


def installed(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it (a ``None`` entry in
    ``sys.modules``, which blocks an import, counts as not installed)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require(module: str, *, needed_for: str, extra: str,
            package: str | None = None) -> ModuleType:
    """``module`` imported, or :class:`MissingExtra` naming ``extra`` (``package`` is the
    distribution's name where it differs from the module's)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise missing(needed_for, package or module.partition(".")[0], extra) from None
