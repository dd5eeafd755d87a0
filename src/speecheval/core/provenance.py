"""The provenance record of a run directory: what produced these numbers.

Every run directory gets one ``provenance.json`` in one shape, so a number can be traced
to the code, the packages, the models, the inputs, the settings and the command that
produced it, and two runs can be compared by what went into them:

- ``tool`` / ``tool_version``: speecheval and its version; ``python``: the interpreter;
- ``packages``: the version of each named distribution (``None``: not installed);
- ``models``: SHA-256 of each model file, by a name the caller chooses;
- ``inputs``: SHA-256 of each input file, by a name the caller chooses (a path relative to
  the input root keeps the record independent of where the inputs were mounted);
- ``settings``: the settings that change a number (JSON values);
- ``command``: the command line as run. The caller passes it, already stripped of
  secrets (``speecheval.core.redact`` describes agent options without them), since core
  cannot know which arguments carry one.
- ``numeric``: what did the arithmetic (:func:`~speecheval.core.numeric_env.numeric_environment`:
  numpy's BLAS library, version, kernel and threads, the CPU's kernel-choosing
  extensions). It is beside the numbers, never in them: two machines whose BLAS picks
  different kernels may round differently, and this says which ran.

The record holds no clock time and no host name: rerunning the same command on the same
inputs writes the same bytes.
"""

from __future__ import annotations

import json
import platform
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from .canonical_json import dumps
from .dist_version import version
from .errors import InputError
from .hashing import sha256_file
from .numeric_env import numeric_environment
from .output import atomic_write_text
from .results import Result

PROVENANCE_FILE = "provenance.json"
# Distributions whose versions can change a number in every family.
CORE_PACKAGES: tuple[str, ...] = ("numpy", "scipy", "soundfile")


@dataclass(frozen=True)
class Provenance(Result, kind="core.provenance"):
    """What produced a run directory (see the module docstring for each field)."""

    tool: str
    tool_version: str
    python: str
    packages: dict[str, str | None]
    models: dict[str, str]
    inputs: dict[str, str]
    settings: dict[str, Any]
    command: tuple[str, ...]
    numeric: dict[str, Any] = field(default_factory=dict)

    def write(self, directory: str | Path) -> Path:
        """Write ``provenance.json`` (canonical JSON, atomically) into ``directory``."""
        target = Path(directory) / PROVENANCE_FILE
        atomic_write_text(target, dumps(self.to_dict()))
        return target


def package_version(distribution: str) -> str | None:
    """Installed version of ``distribution``; ``None`` when it is not installed
    (:func:`.dist_version.version`: ``importlib.metadata``'s answer, mostly without
    importing it)."""
    return version(distribution)


def collect_provenance(*, command: Sequence[str], settings: Mapping[str, Any],
                       inputs: Mapping[str, str | Path] | None = None,
                       models: Mapping[str, str | Path] | None = None,
                       packages: Iterable[str] = (),
                       hashed: Mapping[Path, str] | None = None) -> Provenance:
    """The record of a run: hashes the named input and model files, looks up versions.

    ``packages`` adds distributions to :data:`CORE_PACKAGES` (for example
    ``onnxruntime`` and ``silero-vad`` for a run that used Silero). ``hashed`` gives the
    SHA-256 the run already took of the bytes it read from a file, by path: recorded as
    it is, not read and hashed a second time (the record then names the very bytes the
    run used).
    """
    known = hashed or {}

    def digest(path: str | Path, what: str) -> str:
        return known.get(Path(path)) or _hash(path, what)

    names = sorted(set(CORE_PACKAGES) | set(packages))
    return Provenance(
        tool="speecheval",
        tool_version=__version__,
        python=platform.python_version(),
        packages={name: package_version(name) for name in names},
        models={name: digest(path, "model") for name, path in sorted((models or {}).items())},
        inputs={name: digest(path, "input") for name, path in sorted((inputs or {}).items())},
        settings=_plain(dict(settings)),
        command=tuple(command),
        numeric=numeric_environment(),
    )


def _plain(value: Any) -> Any:
    """Settings as plain JSON values (tuples become lists, paths strings), so the record
    reads back equal to what was written.

    >>> _plain({"frame_ms": 10, "tracks": ("user", "agent"), "out": Path("runs/a")})
    {'frame_ms': 10, 'tracks': ['user', 'agent'], 'out': 'runs/a'}
    """
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    raise TypeError(f"a setting must be a JSON value, got {type(value).__name__}")


def _hash(path: str | Path, what: str) -> str:
    try:
        return sha256_file(path)
    except OSError as exc:
        raise InputError(f"cannot read {what} file to record its hash: {exc.strerror}",
                         path=path) from exc


def read_provenance(path: str | Path) -> Provenance:
    """Read a ``provenance.json`` written by :meth:`Provenance.write`."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read the provenance record: {exc}", path=path) from exc
    try:
        return Provenance.from_dict(data)
    except InputError as exc:
        raise InputError(exc.problem, path=path) from exc
