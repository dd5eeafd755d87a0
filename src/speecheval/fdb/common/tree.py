"""The FDB v1.0 reference tree: the interface between capture and scoring.

``reference-export`` writes ``manifest.json`` and the per-sample files, ``reference-asr``
adds ``asr.json``; scorers read them through ``tree_read.load_manifest`` and
``load_asr``, which check them against the rules of ``tree_rules`` and stop with the
file, the key, the line, the sample and the problem. This module holds what they are
read into and the names of a tree, and imports none of its readers. Writers may add their own
records at the top level of a tree file; anywhere else an unknown key is refused. Every file of
a tree is reached through :func:`tree_file` or :meth:`ManifestSample.file`, which refuse
a path whose real location (symbolic links resolved) lies outside the tree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ...core.paths import resolve_inside

MANIFEST_FILE = "manifest.json"
ASR_FILE = "asr.json"
SUMMARY_FILE = "summary.json"
OUTPUT_WAV = "output.wav"
OUTPUT_JSON = "output.json"
MANIFEST_KIND = "fdb-v1.0-reference-tree"
ASR_KIND = "fdb-v1.0-reference-asr"
SUMMARY_KIND = "fdb-v1.0-reference-summary"
SCHEMA_VERSION = 1

PAUSE_HANDLING = "pause_handling"
SMOOTH_TURN_TAKING = "smooth_turn_taking"
USER_INTERRUPTION = "user_interruption"
BACKCHANNEL = "backchannel"

SUBSET_TASKS: dict[str, str] = {
    "synthetic_pause_handling": PAUSE_HANDLING,
    "candor_pause_handling": PAUSE_HANDLING,
    "candor_turn_taking": SMOOTH_TURN_TAKING,
    "synthetic_user_interruption": USER_INTERRUPTION,
    "icc_backchannel": BACKCHANNEL,
}
DECLARED_SIZES: dict[str, int] = {
    "synthetic_pause_handling": 137,
    "candor_pause_handling": 216,
    "candor_turn_taking": 119,
    "synthetic_user_interruption": 200,
    "icc_backchannel": 55,
}
"""Full subset sizes of the v1.0 dataset (``dataset.declared`` of a complete capture)."""

SILERO_WINDOW_S = 0.032
"""The shortest T scored: one Silero window, 512 samples at 16 kHz and 256 at 8 kHz (other
rates are brought to 16 kHz first; ``vad.silero_spec.FRAMING``). A shorter window holds no
speech decision, so a sample that short is a broken manifest, not a silent sample."""

ANNOTATION_FILES: dict[str, str | None] = {
    PAUSE_HANDLING: "pause.json",
    SMOOTH_TURN_TAKING: "turn_taking.json",
    USER_INTERRUPTION: "interrupt.json",
    BACKCHANNEL: None,
}


@dataclass(frozen=True)
class SampleListing:
    """A sample as a tree lists it: its id, subset and task, the input length T, and
    whether it is scored (and why not). ``manifest.json`` lists it with its files
    (:class:`ManifestSample`), the v1.0 tree builder with the outcome it was made for."""

    sample_id: str
    subset: str
    task: str
    input_duration_s: float
    eligible: bool
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class ManifestSample(SampleListing):
    """One selected sample as ``manifest.json`` lists it."""

    files: dict[str, str]

    @property
    def annotation_file(self) -> str | None:
        return ANNOTATION_FILES[self.task]

    def file(self, tree: Path, name: str) -> Path:
        """``TREE/<sample_id>/<name>``; refused if its real path leaves the tree."""
        return resolve_inside(tree, f"{self.sample_id}/{name}", sample_id=self.sample_id)


def tree_file(tree: Path, name: str) -> Path:
    """A top-level file of the tree; refused if its real path leaves the tree."""
    return resolve_inside(tree, name)


@dataclass(frozen=True)
class Manifest:
    """The selected samples of a tree, with the dataset revision and declared sizes."""

    path: Path
    sha256: str
    revision: str
    declared: dict[str, int]
    samples: tuple[ManifestSample, ...]


@dataclass(frozen=True)
class AsrIndex:
    """``asr.json``: the transcriber's identity and the hash of every transcript."""

    path: Path
    sha256: str
    identity: dict[str, Any]
    transcripts: dict[str, str]


def read_json(path: Path, *, sample_id: str | None = None, what: str = "file") -> Any:
    """Parse a JSON file, turning a missing or malformed file into an InputError."""
    if not path.is_file():
        raise InputError(f"{what} is missing", path=path, sample_id=sample_id)
    return parse_json(path.read_bytes(), path, sample_id=sample_id, what=what)


def parse_json(data: bytes, path: Path, *, sample_id: str | None = None,
               what: str = "file") -> Any:
    """Parse the bytes of the JSON file ``path`` as :func:`read_json` does: UTF-8, with
    universal newlines (as a file opened in text mode reads), malformed JSON an
    InputError. For a caller that hashes the same bytes, so each file is read once."""
    try:
        text = data.decode("utf-8")
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{what} is not valid JSON: {exc}", path=path,
                         sample_id=sample_id) from exc
