"""The committed espeak-ng speech clips and their exact word times.

``data/speech/index.json`` (written by ``scripts/make_fdb_speech.py``) lists each clip's
text and the start and end of every word inside it. The times are exact by construction
(each word was synthesised alone and joined with a fixed gap), so a placed clip's
transcript needs no aligner.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ....core.audio import read_mono
from ....core.errors import InputError
from ....core.hashing import sha256_bytes, sha256_file
from ....core.pcm import to_int16
from ....core.timebase import to_us
from .spec import RATE


@dataclass(frozen=True)
class ClipWord:
    """One word of a clip, in integer microseconds from the clip start."""

    text: str
    start_us: int
    end_us: int


@dataclass(frozen=True)
class Clip:
    """A mono int16 clip at :data:`RATE` with its words."""

    name: str
    text: str
    pcm: NDArray[np.int16]
    words: tuple[ClipWord, ...]

    @property
    def duration_s(self) -> float:
        return int(self.pcm.shape[0]) / RATE


@dataclass(frozen=True)
class ClipLibrary:
    """All committed clips, by name, plus the SHA-256 of the index that lists them."""

    clips: dict[str, Clip]
    index_sha256: str

    def __getitem__(self, name: str) -> Clip:
        try:
            return self.clips[name]
        except KeyError:
            raise KeyError(f"no speech clip named {name!r}") from None


def speech_dir() -> Path:
    """Directory of the committed clips inside the installed package."""
    return Path(str(resources.files("speecheval.fdb.v10") / "data" / "speech"))


def _load_clip(folder: Path, entry: dict[str, object]) -> Clip:
    path = folder / str(entry["file"])
    if sha256_file(path) != entry["sha256"]:
        raise InputError("speech clip differs from index.json (rerun "
                         "scripts/make_fdb_speech.py)", path=path)
    audio = read_mono(path)
    if audio.rate != RATE:
        raise InputError(f"speech clip is {audio.rate} Hz, expected {RATE}", path=path)
    # PCM16 read as float is k / 32768 exactly, so this recovers the stored integers.
    pcm = to_int16(audio.samples)
    raw_words = entry["words"]
    assert isinstance(raw_words, list)
    words = tuple(ClipWord(str(w["text"]), to_us(float(w["start_s"])), to_us(float(w["end_s"])))
                  for w in raw_words)
    return Clip(name=str(entry["name"]), text=str(entry["text"]), pcm=pcm, words=words)


@cache
def load_clips(folder: Path | None = None) -> ClipLibrary:
    """Load and verify every clip listed in ``index.json`` (cached per folder)."""
    base = speech_dir() if folder is None else folder
    index_path = base / "index.json"
    raw = index_path.read_bytes()
    index = json.loads(raw)
    if index.get("rate") != RATE:
        raise InputError(f"clip index rate is {index.get('rate')}, expected {RATE}",
                         path=index_path)
    clips = {str(e["name"]): _load_clip(base, e) for e in index["clips"]}
    return ClipLibrary(clips=clips, index_sha256=sha256_bytes(raw))
