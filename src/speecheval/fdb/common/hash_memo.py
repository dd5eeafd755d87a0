"""SHA-256 of output.wav files remembered across runs while the files stay untouched.

A warm ``unified-score`` takes every file's segments from the VAD cache, but it still has
to prove each ``output.wav`` is the file ``manifest.json`` names, and hashing 200 files of
30 s (190 MB) was the longest part of a warm run. Like git's index, this memo keeps, per
file, what ``stat`` said when the file was last hashed in full (device, inode, size, and
the modification and status-change times in nanoseconds) and the SHA-256 it had. A file
whose ``stat`` is the same is not read again; anything else is hashed in full.

Why the ``stat`` is enough: writing a file, truncating it, renaming another file over it
or resetting its modification time (``touch -d``, ``os.utime``) all set its status-change
time (ctime) to the current time, which a program cannot set back. Two exceptions are
guarded against:

- the clock ticks coarsely (file times advance by a few milliseconds at a time), so a
  file changed twice within one tick could keep its times: a file is remembered only
  when its last change is at least :data:`SETTLED_NS` older than the moment it was
  hashed (a file written just before a run is hashed again by the next run);
- a file changed while it is being hashed: its ``stat`` is taken before and after the
  hash and the file is remembered only when both agree.

What is not guarded against: writes to the disk below the file system, or a system
clock set back to the second a file was last changed. The memo lives in the VAD cache
folder (``<cache>/hashes/<SHA-256 of the tree's absolute path>.json``), which a run trusts
as it trusts the cache's entries; ``--vad-cache off`` remembers nothing and hashes every
file. Like a cache entry, the memo never changes a number: it only decides whether a
file is read to prove what the manifest already says.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import threading
import time
from pathlib import Path

from ...core.canonical_json import dumps_line
from ...core.errors import InputError
from ...core.hashing import sha256_bytes, sha256_file
from ...core.log import get_logger
from ...core.output import atomic_write_text

_log = get_logger(__name__)

FORMAT = "speecheval.hash-memo/1"
SETTLED_NS = 2_000_000_000

Fingerprint = tuple[int, int, int, int, int]
# A remembered file: its fingerprint's five numbers, then its SHA-256.
Record = list[object]


def fingerprint(found: os.stat_result) -> Fingerprint:
    """What ``stat`` says that changes whenever a file's bytes do (module doc)."""
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def regular_file(name: str, missing: InputError) -> os.stat_result:
    """``stat`` of ``name``, which must be a regular file (else ``missing`` is raised)."""
    try:
        found = os.stat(name)
    except OSError:
        raise missing from None
    if not stat.S_ISREG(found.st_mode):
        raise missing
    return found


def settled_record(name: str, before: os.stat_result, digest: str) -> Record | None:
    """What to remember of a file just hashed to ``digest``, given its ``stat`` from
    before the hash: None when it changed meanwhile or too recently (module doc)."""
    try:
        after = os.stat(name)
    except OSError:
        return None
    settled = time.time_ns() - max(before.st_mtime_ns, before.st_ctime_ns) >= SETTLED_NS
    if not settled or fingerprint(after) != fingerprint(before):
        return None
    return [*fingerprint(before), digest]


class HashMemo:
    """The remembered SHA-256 of one tree's files (see the module docstring)."""

    def __init__(self, cache_dir: Path, tree: Path) -> None:
        self.path = (cache_dir / "hashes"
                     / f"{sha256_bytes(os.path.abspath(tree).encode('utf-8'))}.json")
        self._known = self._load()
        self._seen: dict[str, Record] = {}
        self._lock = threading.Lock()

    def _load(self) -> dict[str, Record]:
        """The memo's records by absolute path; none if it is missing or malformed (then
        every file is hashed, and the memo rewritten)."""
        try:
            memo = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return {}
        if not (isinstance(memo, dict) and memo.get("format") == FORMAT
                and isinstance(memo.get("files"), dict)):
            return {}
        return {name: record for name, record in memo["files"].items()
                if isinstance(record, list) and len(record) == 6}

    def sha256(self, path: Path, missing: InputError) -> str:
        """The SHA-256 of the regular file ``path``: remembered when its ``stat`` is the
        one recorded, else read and hashed (and remembered if it was settled and did not
        change meanwhile). ``missing`` is raised when it is not a regular file."""
        name = os.path.abspath(path)
        before = regular_file(name, missing)
        known = self._known.get(name)
        if known is not None and tuple(known[:5]) == fingerprint(before) \
                and isinstance(known[5], str):
            _log.debug("%s: unchanged since it was hashed (hash memo)", name)
            self.remember(path, known)
            return known[5]
        digest = sha256_file(name)
        self.remember(path, settled_record(name, before, digest))
        return digest

    def remember(self, path: Path, record: Record | None) -> None:
        """Keep ``record`` (from :func:`settled_record`; None: nothing) for ``path``."""
        if record is not None:
            with self._lock:  # files are hashed in threads
                self._seen[os.path.abspath(path)] = record

    def save(self) -> None:
        """Keep the records of the files this run proved (rewritten only when they
        differ from what was read; a folder that cannot be written only loses the memo)."""
        if self._seen == self._known:
            return
        with contextlib.suppress(OSError):
            atomic_write_text(self.path, dumps_line({"format": FORMAT, "files": self._seen}),
                              durable=False)
