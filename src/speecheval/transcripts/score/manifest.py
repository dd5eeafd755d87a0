"""The score manifest: a strict schema (unknown keys are errors naming file and key).

See ``docs/transcripts-score.md`` for the schema with an example. Paths in the manifest
are relative to the manifest's own folder (absolute paths are taken as they are), so a
manifest and its data can move together and the run does not depend on the current
directory. A relative path must stay inside that folder: one that leaves it through
``..`` or a symbolic link is refused. Every referenced file must exist when the manifest
is read, so a bad path is reported before anything is scored or written.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from ...core.decimal_seconds import MAX_SECONDS
from ...core.errors import InputError
from ...core.paths import resolve_inside
from .. import formats
from ..maturity import SPEC_REPEATS
from ..text.tokenize import UNITS, Unit
from .strict_load import load_document

FORMAT = "speecheval.transcripts.manifest/1"
SampleKind = Literal["speech", "low_speech", "silence", "music"]
SAMPLE_KINDS: tuple[str, ...] = get_args(SampleKind)
NON_SPEECH_KINDS = frozenset({"silence", "music"})
HALLUCINATION_KINDS = frozenset({"silence", "music", "low_speech"})
_SAMPLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class ScenarioSpec:
    """A scenario: its token unit (word: WER, char: CER, mixed: MER) and maturity inputs."""

    name: str
    unit: Unit
    core: bool
    reference_leak_free: bool


@dataclass(frozen=True)
class ReferenceSpec:
    """Reference files and metadata of a sample (terms come only from here)."""

    transcript: Path | None
    rttm: Path | None
    words: Path | None
    terms: tuple[str, ...]


@dataclass(frozen=True)
class RunSpec:
    """One run (repeat) of the system on a sample; ``failure`` set means it failed."""

    repeat: int
    transcript: Path | None
    rttm: Path | None
    words: Path | None
    failure: str | None


@dataclass(frozen=True)
class SampleSpec:
    """One recording: scenario, audio duration, kind, independence ids, files."""

    id: str
    scenario: str
    duration_s: float
    kind: SampleKind
    source: str
    speakers: tuple[str, ...]
    reference: ReferenceSpec
    runs: tuple[RunSpec, ...]


@dataclass(frozen=True)
class Manifest:
    """A validated manifest."""

    path: Path
    system: str
    required_repeats: int
    scenarios: tuple[ScenarioSpec, ...]
    samples: tuple[SampleSpec, ...]
    speaker_attribution: bool | None = None  # None: inferred from the successful runs
    token_timestamps: bool | None = None

    def scenario(self, name: str) -> ScenarioSpec:
        """The scenario called ``name`` (validated to exist)."""
        return next(s for s in self.scenarios if s.name == name)


class _Fields:
    """Reads the keys of one mapping and refuses the ones nobody asked for."""

    def __init__(self, value: Any, where: str, path: Path, sample_id: str | None = None):
        self.path, self.where, self.sample_id = path, where, sample_id
        if not isinstance(value, dict):
            self.fail(f"{where} must be a mapping, got {type(value).__name__}")
        self.data: dict[str, Any] = value
        self.used: set[str] = set()

    def fail(self, problem: str) -> None:
        raise InputError(problem, path=self.path, sample_id=self.sample_id)

    def get(self, key: str, required: bool) -> Any:
        self.used.add(key)
        if key not in self.data:
            if required:
                self.fail(f"{self.where}: missing key {key!r}")
            return None
        return self.data[key]

    def text(self, key: str, required: bool = True) -> str | None:
        value = self.get(key, required)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            self.fail(f"{self.where}.{key} must be a non-empty string, got {value!r}")
        return None if value is None else str(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.optional_flag(key)
        return default if value is None else value

    def optional_flag(self, key: str) -> bool | None:
        value = self.get(key, False)
        if value is None:
            return None
        if not isinstance(value, bool):
            self.fail(f"{self.where}.{key} must be true or false, got {value!r}")
        return bool(value)

    def integer(self, key: str, default: int | None, minimum: int) -> int:
        value = self.get(key, default is None)
        if value is None:
            assert default is not None
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.fail(f"{self.where}.{key} must be an integer >= {minimum}, got {value!r}")
        return int(value)

    def strings(self, key: str) -> tuple[str, ...]:
        value = self.get(key, False)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip()
                                                  for v in value):
            self.fail(f"{self.where}.{key} must be a list of non-empty strings")
        if len(set(value)) != len(value):
            self.fail(f"{self.where}.{key} lists an entry twice")
        return tuple(value)

    def file(self, key: str, required: bool = False,
             suffixes: tuple[str, ...] | None = None) -> Path | None:
        value = self.text(key, required)
        if value is None:
            return None
        target = Path(value) if Path(value).is_absolute() else self.inside(key, value)
        if suffixes is not None and target.suffix.lower() not in suffixes:
            self.fail(f"{self.where}.{key}: {value!r} has an unknown transcript format; "
                      f"expected a suffix among {', '.join(suffixes)}")
        if not target.is_file():
            self.fail(f"{self.where}.{key}: file not found: {target}")
        return target

    def inside(self, key: str, value: str) -> Path:
        """A relative path resolved in the manifest's folder, refused if it leaves it."""
        try:
            return resolve_inside(self.path.parent, value, root_name="the manifest's folder")
        except InputError as exc:
            raise InputError(f"{self.where}.{key}: {value!r} {exc.problem}", path=self.path,
                             sample_id=self.sample_id) from exc

    def finish(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            self.fail(f"{self.where}: unknown key {unknown[0]!r}"
                      + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""))


def load_manifest(path: Path) -> Manifest:
    """Read and validate a manifest; any problem is an InputError naming file, sample, key."""
    top = _Fields(load_document(path), "manifest", path)
    if top.text("format") != FORMAT:
        top.fail(f"manifest.format must be {FORMAT!r}")
    system = top.text("system")
    assert system is not None
    repeats = top.integer("required_repeats", SPEC_REPEATS, minimum=1)
    speakers = top.optional_flag("speaker_attribution")
    token_times = top.optional_flag("token_timestamps")
    scenarios = _scenarios(top.get("scenarios", True), path)
    raw_samples = top.get("samples", True)
    top.finish()
    if not isinstance(raw_samples, list) or not raw_samples:
        top.fail("manifest.samples must be a non-empty list")
    samples = tuple(_sample(item, index, path, {s.name for s in scenarios})
                    for index, item in enumerate(raw_samples))
    ids = [s.id for s in samples]
    duplicate = next((i for i in ids if ids.count(i) > 1), None)
    if duplicate is not None:
        raise InputError("sample id appears twice in the manifest", path=path,
                         sample_id=duplicate)
    empty = sorted({s.name for s in scenarios} - {s.scenario for s in samples})
    if empty:
        raise InputError(f"scenario {empty[0]!r} is declared but has no samples", path=path)
    return Manifest(path, system, repeats, scenarios, samples, speakers, token_times)


def _scenarios(value: Any, path: Path) -> tuple[ScenarioSpec, ...]:
    if not isinstance(value, dict) or not value:
        raise InputError("manifest.scenarios must be a non-empty mapping of scenario names",
                         path=path)
    bad = next((name for name in value if not isinstance(name, str) or not name.strip()), None)
    if bad is not None:
        raise InputError(f"scenarios: scenario name {bad!r} must be a non-empty string",
                         path=path)
    result = []
    for name in sorted(value):
        fields = _Fields(value[name], f"scenarios.{name}", path)
        unit = fields.text("unit")
        if unit not in UNITS:
            fields.fail(f"scenarios.{name}.unit must be one of {', '.join(UNITS)}, got {unit!r}")
        result.append(ScenarioSpec(str(name), unit,  # type: ignore[arg-type]
                                   fields.flag("core", True),
                                   fields.flag("reference_leak_free", False)))
        fields.finish()
    return tuple(result)


def _sample(value: Any, index: int, path: Path, scenarios: set[str]) -> SampleSpec:
    where = f"samples[{index}]"
    sample_id = value.get("id") if isinstance(value, dict) else None
    fields = _Fields(value, where, path, sample_id if isinstance(sample_id, str) else None)
    ident = fields.text("id")
    assert ident is not None
    if not _SAMPLE_ID.match(ident):
        fields.fail(f"{where}.id {ident!r} may hold only letters, digits, '.', '_' and '-'")
    scenario = fields.text("scenario")
    if scenario not in scenarios:
        fields.fail(f"{where}.scenario {scenario!r} is not declared under scenarios")
    duration = fields.get("duration_s", True)
    if (isinstance(duration, bool) or not isinstance(duration, int | float)
            or not math.isfinite(duration) or not 0 < duration <= MAX_SECONDS):
        fields.fail(f"{where}.duration_s must be a positive number of seconds up to "
                    f"{MAX_SECONDS:g}, got {duration!r}")
    kind = fields.text("kind", required=False) or "speech"
    if kind not in SAMPLE_KINDS:
        fields.fail(f"{where}.kind must be one of {', '.join(SAMPLE_KINDS)}, got {kind!r}")
    source = fields.text("source")
    speakers = fields.strings("speakers")
    reference = _reference(fields.get("reference", kind not in NON_SPEECH_KINDS), where, path,
                           ident, kind)
    raw_runs = fields.get("runs", True)
    fields.finish()
    if not isinstance(raw_runs, list) or not raw_runs:
        fields.fail(f"{where}.runs must be a non-empty list")
    runs = tuple(_run(item, f"{where}.runs[{k}]", path, ident) for k, item in enumerate(raw_runs))
    repeats = [r.repeat for r in runs]
    if len(set(repeats)) != len(repeats):
        fields.fail(f"{where}.runs: a repeat index appears twice")
    assert scenario is not None and source is not None
    return SampleSpec(ident, scenario, float(duration), kind,  # type: ignore[arg-type]
                      source, speakers, reference, tuple(sorted(runs, key=lambda r: r.repeat)))


def _reference(value: Any, where: str, path: Path, sample_id: str, kind: str) -> ReferenceSpec:
    if value is None:
        return ReferenceSpec(None, None, None, ())
    fields = _Fields(value, f"{where}.reference", path, sample_id)
    needs_text = kind not in NON_SPEECH_KINDS
    transcript = fields.file("transcript", required=needs_text, suffixes=formats.suffixes())
    if transcript is not None and not needs_text:
        fields.fail(f"{where}.reference.transcript: a {kind} sample has no reference "
                    "transcript; it is scored by its hallucinated output only")
    spec = ReferenceSpec(transcript, fields.file("rttm"), fields.file("words"),
                         fields.strings("terms"))
    fields.finish()
    return spec


def _run(value: Any, where: str, path: Path, sample_id: str) -> RunSpec:
    fields = _Fields(value, where, path, sample_id)
    repeat = fields.integer("repeat", 1, minimum=1)
    failure = fields.text("failed", required=False)
    if failure is not None:
        for key in ("transcript", "rttm", "words"):
            if key in fields.data:
                fields.fail(f"{where}: a failed run has no files, but {key!r} is given")
        fields.finish()
        return RunSpec(repeat, None, None, None, failure)
    spec = RunSpec(repeat, fields.file("transcript", required=True,
                                       suffixes=formats.suffixes()),
                   fields.file("rttm"), fields.file("words"), None)
    fields.finish()
    return spec
