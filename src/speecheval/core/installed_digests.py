"""SHA-256 of a pip-installed package's files, from the digests its installer recorded.

Why: a recogniser's identity names its model files by their SHA-256, and hashing the
76 MB ``model.bin`` of the bundled Whisper costs about 0.15 s of CPU every time a command
starts (more than the decoding of a short file). The installer already wrote every
file's SHA-256 and size into the distribution's ``RECORD`` (the wheel's digests, checked
by pip as it unpacked them), so the identity can read them there.

Reading them is honest only while the file is still the one the installer wrote. A
recorded digest is taken for a file only when its size is the recorded size and it was
last modified no later than ``RECORD`` itself (an installer writes ``RECORD`` after the
files it lists); a file edited, replaced or truncated after the install fails one of the
two and is hashed in full, as is a file ``RECORD`` lists without a digest or does not
list. The answer is the same hex digest either way, so what a result records does not
depend on which way it was found; only a deliberate edit that keeps the size and sets
the modification time back would go unseen, which no file hash of a path guards against
either (the file can change after it is hashed).
"""

from __future__ import annotations

import base64
import csv
import os
from pathlib import Path

from .dist_version import metadata_folder
from .hashing import sha256_file

RECORD = "RECORD"


def installed_sha256(distribution: str, files: list[Path]) -> dict[Path, str]:
    """The hex SHA-256 of each of ``files`` (paths inside the installed ``distribution``),
    from its ``RECORD`` where that is still true of the file, else by hashing the file."""
    recorded, record_mtime = _recorded(distribution)
    digests = {}
    for path in files:
        entry = recorded.get(os.path.realpath(path))
        digests[path] = (entry[0] if entry is not None and _unchanged(path, entry[1],
                                                                       record_mtime)
                         else sha256_file(path))
    return digests


def _unchanged(path: Path, size: int, record_mtime: int) -> bool:
    """Whether ``path`` still has the recorded size and is no newer than ``RECORD``."""
    stat = path.stat()
    return stat.st_size == size and stat.st_mtime_ns <= record_mtime


def _recorded(distribution: str) -> tuple[dict[str, tuple[str, int]], int]:
    """Real path -> (hex SHA-256, size) of every file ``RECORD`` gives both for, and the
    modification time of ``RECORD`` (nothing, if the distribution has no ``RECORD``)."""
    record_path = _record_path(distribution)
    if record_path is None:
        return {}, 0
    try:
        record_mtime = record_path.stat().st_mtime_ns
        text = record_path.read_text(encoding="utf-8")
    except OSError:
        return {}, 0
    recorded = {}
    for row in csv.reader(text.splitlines()):
        if len(row) != 3 or not row[1].startswith("sha256=") or not row[2].isdigit():
            continue
        digest = _hex(row[1].removeprefix("sha256="))
        if digest is not None:
            where = os.path.realpath(record_path.parent.parent / row[0])
            recorded[where] = (digest, int(row[2]))
    return recorded, record_mtime


def _record_path(distribution: str) -> Path | None:
    """Where the ``RECORD`` of ``distribution`` is: in its plain ``.dist-info`` folder
    (:func:`.dist_version.metadata_folder`, without importing ``importlib.metadata``), else
    where ``importlib.metadata`` finds it; None when it has none."""
    folder = metadata_folder(distribution)
    if folder is not None:
        return Path(folder, RECORD)  # missing: its stat fails, as a file never recorded
    import importlib.metadata

    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    record = next((f for f in dist.files or () if f.name == RECORD
                   and f.parent.name.endswith(".dist-info")), None)
    return None if record is None else Path(str(dist.locate_file(record)))


def _hex(urlsafe_b64: str) -> str | None:
    """A RECORD digest (URL-safe base64 without padding) as hex; None if it is not one.

    >>> _hex("47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU")[:16]
    'e3b0c44298fc1c14'
    """
    try:
        raw = base64.urlsafe_b64decode(urlsafe_b64 + "=" * (-len(urlsafe_b64) % 4))
    except ValueError:
        return None
    return raw.hex() if len(raw) == 32 else None
