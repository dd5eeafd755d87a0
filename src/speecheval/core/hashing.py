"""SHA-256 of files and bytes: the single place the project hashes inputs.

Every input a result records is hashed here, so ``-v`` names each file read from here.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .log import get_logger

_log = get_logger(__name__)
_CHUNK = 1 << 20


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of bytes.

    >>> sha256_bytes(b"")[:16]
    'e3b0c44298fc1c14'
    """
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    hexdigest = digest.hexdigest()
    _log.debug("read %s (sha256 %s)", path, hexdigest)
    return hexdigest
