"""The FDB v1.0 reference tree: the interface between capture and scoring.

``reference-export`` writes ``manifest.json`` and the per-sample files, ``reference-asr``
adds ``asr.json``; scorers read them through :func:`load_manifest` and :func:`load_asr`,
which check the schema and stop with the file, the sample and the problem. Unknown keys
are accepted so that writers can add provenance without breaking readers. Every file of
a tree is reached through :func:`tree_file` or :meth:`ManifestSample.file`, which refuse
a path whose real location (symbolic links resolved) lies outside the tree.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ...core.hashing import sha256_file
from ...core.paths import resolve_inside
from ...core.timebase import to_us

MANIFEST_FILE = "manifest.json"
ASR_FILE = "asr.json"
SUMMARY_FILE = "summary.json"
OUTPUT_WAV = "output.wav"
OUTPUT_JSON = "output.json"
MANIFEST_KIND = "fdb-v1.0-reference-tree"
ASR_KIND = "fdb-v1.0-reference-asr"
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
rates are brought to 16 kHz first; ``vad.silero_model.FRAMING``). A shorter window holds no
speech decision, so a sample that short is a broken manifest, not a silent sample."""

ANNOTATION_FILES: dict[str, str | None] = {
    PAUSE_HANDLING: "pause.json",
    SMOOTH_TURN_TAKING: "turn_taking.json",
    USER_INTERRUPTION: "interrupt.json",
    BACKCHANNEL: None,
}


@dataclass(frozen=True)
class ManifestSample:
    """One selected sample as ``manifest.json`` lists it."""

    sample_id: str
    subset: str
    task: str
    input_duration_s: float
    eligible: bool
    reasons: tuple[str, ...]
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
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{what} is not valid JSON: {exc}", path=path,
                         sample_id=sample_id) from exc


def _require(condition: bool, problem: str, path: Path, sample_id: str | None = None) -> None:
    if not condition:
        raise InputError(problem, path=path, sample_id=sample_id)


def _is_number(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value))


def _check_header(data: Any, path: Path, kind: str) -> None:
    _require(isinstance(data, dict), "expected a JSON object", path)
    _require(data.get("kind") == kind, f"kind must be {kind!r}, found {data.get('kind')!r}",
             path)
    _require(data.get("schema_version") == SCHEMA_VERSION,
             f"unsupported schema_version {data.get('schema_version')!r} "
             f"(this speecheval reads {SCHEMA_VERSION})", path)


def _parse_sample(raw: Any, path: Path, index: int) -> ManifestSample:
    _require(isinstance(raw, dict), f"samples[{index}] is not an object", path)
    sample_id = raw.get("sample_id")
    _require(isinstance(sample_id, str) and sample_id != "",
             f"samples[{index}] has no sample_id", path)
    assert isinstance(sample_id, str)
    subset = raw.get("subset")
    _require(subset in SUBSET_TASKS, f"unknown subset {subset!r}", path, sample_id)
    assert isinstance(subset, str)
    parts = sample_id.split("/")
    _require(len(parts) == 2 and parts[0] == subset and parts[1] not in ("", ".", ".."),
             f"sample_id must be '{subset}/<id>'", path, sample_id)
    task = raw.get("task")
    _require(task == SUBSET_TASKS[subset],
             f"task {task!r} does not match subset {subset} ({SUBSET_TASKS[subset]})",
             path, sample_id)
    duration = raw.get("input_duration_s")
    _require(_is_number(duration) and duration > 0,
             f"input_duration_s must be a positive number, found {duration!r}", path, sample_id)
    _require(to_us(duration) >= to_us(SILERO_WINDOW_S),
             f"input_duration_s {duration!r} s is shorter than one Silero window "
             f"({SILERO_WINDOW_S} s = 512 samples at 16 kHz)", path, sample_id)
    eligible = raw.get("eligible")
    _require(isinstance(eligible, bool), "eligible must be true or false", path, sample_id)
    reasons = raw.get("reasons")
    _require(isinstance(reasons, list) and all(isinstance(r, str) for r in reasons),
             "reasons must be a list of strings", path, sample_id)
    assert isinstance(reasons, list)
    _require(eligible or len(reasons) > 0, "an ineligible sample must give its reasons",
             path, sample_id)
    _require(not eligible or len(reasons) == 0, "an eligible sample must have no reasons",
             path, sample_id)
    files = raw.get("files")
    _require(isinstance(files, dict) and all(isinstance(k, str) and isinstance(v, str)
                                             for k, v in files.items()),
             "files must map file names to sha256 strings", path, sample_id)
    assert isinstance(files, dict)
    if eligible:
        needed = [OUTPUT_WAV] + [name for name in [ANNOTATION_FILES[str(task)]] if name]
        for name in needed:
            _require(name in files, f"files has no sha256 for {name}", path, sample_id)
    return ManifestSample(sample_id=sample_id, subset=subset, task=str(task),
                          input_duration_s=float(duration), eligible=eligible,
                          reasons=tuple(reasons), files=dict(files))


def load_manifest(tree: Path) -> Manifest:
    """Read and check ``TREE/manifest.json``."""
    path = tree_file(tree, MANIFEST_FILE)
    data = read_json(path, what="manifest.json")
    _check_header(data, path, MANIFEST_KIND)
    dataset = data.get("dataset")
    _require(isinstance(dataset, dict), "dataset must be an object", path)
    revision = dataset.get("revision")
    _require(isinstance(revision, str), "dataset.revision must be a string", path)
    declared = dataset.get("declared")
    _require(isinstance(declared, dict) and all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
        for k, v in declared.items()), "dataset.declared must map subsets to counts", path)
    for subset in declared:
        _require(subset in SUBSET_TASKS, f"dataset.declared names unknown subset {subset!r}",
                 path)
    raw_samples = data.get("samples")
    _require(isinstance(raw_samples, list), "samples must be a list", path)
    samples = tuple(_parse_sample(raw, path, i) for i, raw in enumerate(raw_samples))
    seen: set[str] = set()
    per_subset: dict[str, int] = {}
    for sample in samples:
        _require(sample.sample_id not in seen, "sample listed twice", path, sample.sample_id)
        seen.add(sample.sample_id)
        per_subset[sample.subset] = per_subset.get(sample.subset, 0) + 1
    for subset, count in per_subset.items():
        _require(subset in declared, f"dataset.declared has no size for subset {subset}", path)
        _require(count <= declared[subset],
                 f"{count} samples selected from {subset}, more than its declared "
                 f"{declared[subset]}", path)
    return Manifest(path=path, sha256=sha256_file(path), revision=revision,
                    declared=dict(declared), samples=samples)


def load_asr(tree: Path) -> AsrIndex:
    """Read and check ``TREE/asr.json``; a tree without it cannot be scored."""
    path = tree_file(tree, ASR_FILE)
    if not path.is_file():
        raise InputError("the tree has no asr.json; transcribe it first "
                         "(speecheval fdb10 reference-asr)", path=path)
    data = read_json(path, what="asr.json")
    _check_header(data, path, ASR_KIND)
    identity = data.get("asr")
    _require(isinstance(identity, dict), "asr must be an object naming the transcriber", path)
    transcripts = data.get("transcripts")
    _require(isinstance(transcripts, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in transcripts.items()),
        "transcripts must map sample ids to sha256 strings", path)
    return AsrIndex(path=path, sha256=sha256_file(path), identity=dict(identity),
                    transcripts=dict(transcripts))
