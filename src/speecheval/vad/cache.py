"""A content-addressed store of VAD results, so re-scoring the same audio skips the model.

An entry is the speech segments one detector found in one audio file, with the file's
rate and length. Its key is the SHA-256 of a canonical JSON record of everything that
decides those segments:

- the SHA-256 of the audio file's bytes (not its path or time stamp);
- the detector's digest: the SHA-256 of the detector's ``identity()`` (package and
  version, the SHA-256 of every model file, the runtime and the way the probabilities
  are computed, and every setting) together with the speecheval version;
- the entry format.

Change any of them and the key changes, so a stale entry is never found (a miss), and
the numbers of a run never depend on whether the cache was cold or warm. The detector's
digest is computed once per cache, so a lookup costs one small hash, one small file read
and one parse (a warm run looks up hundreds of entries).

Entries are written atomically (a temporary file in the same folder, flushed, then
renamed over the target), so a run that is killed leaves either the whole entry or none.
They are not synced to disk one by one (an ``fsync`` costs milliseconds, hundreds of
entries a cold run): after a power cut an entry may be empty or cut short, which the
checks below find, so it is recomputed, never trusted.
Each entry (one line of compact canonical JSON) also carries the SHA-256 of its own
content and its key; an entry that fails
either check, does not parse or has the wrong shape (a disk fault, a hand edit) is
reported as corrupt, never trusted, and recomputed and rewritten by the caller.

Where: ``--vad-cache DIR`` (or ``off``), else ``$SPEECHEVAL_VAD_CACHE`` (a folder or
``off``), else ``$XDG_CACHE_HOME/speecheval/vad``, else ``~/.cache/speecheval/vad``.
Entries live in ``<dir>/<first two hex digits>/<key>.json``; deleting the folder clears
the cache.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .. import __version__
from ..core.canonical_json import dumps_line
from ..core.errors import InputError
from ..core.hashing import sha256_bytes
from ..core.output import atomic_write_text
from ..core.timeline import Span

ENV_VAR = "SPEECHEVAL_VAD_CACHE"
OFF = "off"
FORMAT = "speecheval.vad-cache/2"

Lookup = Literal["hit", "miss", "corrupt"]


def default_cache_dir() -> Path | None:
    """Where the cache lives when no ``--vad-cache`` is given (None: turned off)."""
    chosen = os.environ.get(ENV_VAR, "").strip()
    if chosen:
        return None if chosen.lower() == OFF else Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "speecheval" / "vad"


def resolve_cache_dir(option: str | None) -> Path | None:
    """The cache folder for a ``--vad-cache`` value: a folder, ``off``, or None (default).

    >>> resolve_cache_dir("off") is None, resolve_cache_dir("/tmp/x")
    (True, PosixPath('/tmp/x'))
    """
    if option is None:
        return default_cache_dir()
    if not option.strip():
        raise InputError("--vad-cache needs a folder or 'off', got an empty value")
    return None if option.strip().lower() == OFF else Path(option).expanduser()


@dataclass(frozen=True)
class CachedSegments:
    """What the detector found in one file, and the file's rate and length in samples."""

    rate: int
    n_samples: int
    segments: tuple[Span, ...]

    def payload(self) -> dict[str, Any]:
        return {"rate": self.rate, "n_samples": self.n_samples,
                "segments": [[s.start_us, s.end_us, s.open_at_end] for s in self.segments]}

    @classmethod
    def from_payload(cls, payload: Any) -> CachedSegments:
        """Rebuild from :meth:`payload`; ValueError on any other shape."""
        if not isinstance(payload, dict) or set(payload) != {"rate", "n_samples", "segments"}:
            raise ValueError("unexpected keys")
        rate, n_samples, raw = payload["rate"], payload["n_samples"], payload["segments"]
        if not (_is_int(rate) and rate > 0 and _is_int(n_samples) and n_samples >= 0
                and isinstance(raw, list)):
            raise ValueError("bad rate, length or segments")
        segments = []
        for item in raw:
            if not (isinstance(item, list) and len(item) == 3 and _is_int(item[0])
                    and _is_int(item[1]) and isinstance(item[2], bool)):
                raise ValueError("bad segment")
            segments.append(Span(item[0], item[1], open_at_end=item[2]))
        return cls(rate, n_samples, tuple(segments))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def detector_digest(identity: dict[str, object]) -> str:
    """SHA-256 of everything but the audio that decides an entry's segments."""
    return sha256_bytes(dumps_line({"speecheval": __version__, "vad": identity}).encode())


def entry_key(audio_sha256: str, detector: str) -> str:
    """An entry's name from the audio's SHA-256 and :func:`detector_digest`."""
    record = {"format": FORMAT, "audio_sha256": audio_sha256, "detector": detector}
    return sha256_bytes(dumps_line(record).encode("utf-8"))


def cache_key(audio_sha256: str, identity: dict[str, object]) -> str:
    """The entry's name: SHA-256 of everything that decides the segments (module doc)."""
    return entry_key(audio_sha256, detector_digest(identity))


class VadCache:
    """Entries under ``root`` for one detector identity (see the module docstring)."""

    def __init__(self, root: Path, identity: dict[str, object]) -> None:
        self.root = root
        self.identity = identity
        self._detector = detector_digest(identity)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, audio_sha256: str) -> tuple[Lookup, CachedSegments | None]:
        """The entry for the audio with this SHA-256: a hit, a miss, or a corrupt entry."""
        key = entry_key(audio_sha256, self._detector)
        try:
            text = self.path(key).read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            return "miss", None
        except (OSError, UnicodeDecodeError):
            return "corrupt", None
        try:
            entry = json.loads(text)
            if not isinstance(entry, dict) or set(entry) != {"format", "key", "sha256",
                                                             "result"}:
                raise ValueError("unexpected keys")
            if entry["format"] != FORMAT or entry["key"] != key:
                raise ValueError("another key or format")
            if entry["sha256"] != sha256_bytes(dumps_line(entry["result"]).encode("utf-8")):
                raise ValueError("content does not match its checksum")
            return "hit", CachedSegments.from_payload(entry["result"])
        except (ValueError, TypeError):
            return "corrupt", None

    def put(self, audio_sha256: str, found: CachedSegments) -> bool:
        """Store an entry atomically; False when the folder cannot be written (the run
        goes on without it: the cache only saves time)."""
        key = entry_key(audio_sha256, self._detector)
        result = found.payload()
        entry = {"format": FORMAT, "key": key,
                 "sha256": sha256_bytes(dumps_line(result).encode("utf-8")), "result": result}
        try:
            atomic_write_text(self.path(key), dumps_line(entry), durable=False)
        except OSError:
            return False
        return True
