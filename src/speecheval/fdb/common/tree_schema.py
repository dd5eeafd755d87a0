"""The files of a reference tree as pydantic schemas (``core.schema``).

Why a module of its own: pydantic is imported only by the commands that read a tree, not
by ``speecheval --help``. The tree's top level may carry a writer's own records (the
builder's ``generator``, ``asr.json``'s ``manifest_sha256``); inside ``dataset``, each
sample and the reference summary's ``inputs`` and ``judge``, an unknown key is refused,
so a misspelt key cannot read as absent.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import ConfigDict, field_validator, model_validator

from ...core.schema import Schema
from ...core.timebase import to_us
from .tree import (
    ANNOTATION_FILES,
    ASR_KIND,
    MANIFEST_KIND,
    OUTPUT_WAV,
    SCHEMA_VERSION,
    SILERO_WINDOW_S,
    SUBSET_TASKS,
    SUMMARY_KIND,
)

OPEN = ConfigDict(extra="allow")
"""The top level of a tree file: writers may add their own records there."""


class TreeFile(Schema):
    """The header of every tree file: its kind and the schema version."""

    model_config = OPEN
    expected_kind: ClassVar[str]

    kind: str
    schema_version: int

    @field_validator("kind")
    @classmethod
    def _kind(cls, kind: str) -> str:
        if kind != cls.expected_kind:
            raise ValueError(f"kind must be {cls.expected_kind!r}, found {kind!r}")
        return kind

    @field_validator("schema_version")
    @classmethod
    def _version(cls, value: int) -> int:
        if value != SCHEMA_VERSION:
            raise ValueError(f"unsupported schema_version {value!r} "
                             f"(this speecheval reads {SCHEMA_VERSION})")
        return value


class DatasetEntry(Schema):
    """``manifest.json`` ``dataset``: the revision and the full size of each subset."""

    revision: str
    declared: dict[str, int]

    @field_validator("declared")
    @classmethod
    def _known_subsets(cls, declared: dict[str, int]) -> dict[str, int]:
        for subset, size in declared.items():
            if subset not in SUBSET_TASKS:
                raise ValueError(f"names unknown subset {subset!r}")
            if size < 0:
                raise ValueError(f"size of {subset} must be >= 0, got {size}")
        return declared


class SampleEntry(Schema):
    """One selected sample of ``manifest.json``."""

    sample_id: str
    subset: str
    task: str
    input_duration_s: float
    eligible: bool
    reasons: tuple[str, ...]
    files: dict[str, str]
    # What `reference-export` adds for a reader to trace a sample back to its capture
    # (docs/fdb10-capture.md); scoring never reads them, but they are named so that a
    # misspelt scoring key is still refused.
    capture: dict[str, Any] | None = None
    playout: dict[str, Any] | None = None
    pacing: dict[str, Any] | None = None
    eligibility_details: tuple[str, ...] | None = None
    faults_after_t: tuple[Any, ...] | None = None

    @field_validator("subset")
    @classmethod
    def _known_subset(cls, subset: str) -> str:
        if subset not in SUBSET_TASKS:
            raise ValueError(f"unknown subset {subset!r}")
        return subset

    @field_validator("input_duration_s")
    @classmethod
    def _at_least_one_window(cls, duration: float) -> float:
        if duration <= 0:
            raise ValueError(f"input_duration_s must be a positive number, found {duration!r}")
        if to_us(duration) < to_us(SILERO_WINDOW_S):
            raise ValueError(f"input_duration_s {duration!r} s is shorter than one Silero "
                             f"window ({SILERO_WINDOW_S} s = 512 samples at 16 kHz)")
        return duration

    @model_validator(mode="after")
    def _consistent(self) -> SampleEntry:
        parts = self.sample_id.split("/")
        if not (len(parts) == 2 and parts[0] == self.subset
                and parts[1] not in ("", ".", "..")):
            raise ValueError(f"sample_id must be '{self.subset}/<id>'")
        expected = SUBSET_TASKS[self.subset]
        if self.task != expected:
            raise ValueError(f"task {self.task!r} does not match subset {self.subset} "
                             f"({expected})")
        if not self.eligible and not self.reasons:
            raise ValueError("an ineligible sample must give its reasons")
        if self.eligible and self.reasons:
            raise ValueError("an eligible sample must have no reasons")
        if self.eligible:
            for name in (OUTPUT_WAV, ANNOTATION_FILES[self.task]):
                if name is not None and name not in self.files:
                    raise ValueError(f"files has no sha256 for {name}")
        return self


class ManifestFile(TreeFile):
    """``manifest.json``."""

    expected_kind = MANIFEST_KIND

    dataset: DatasetEntry
    samples: tuple[SampleEntry, ...]


class AsrFile(TreeFile):
    """``asr.json``: the transcriber's identity (free-form) and each transcript's hash."""

    expected_kind = ASR_KIND

    asr: dict[str, Any]
    transcripts: dict[str, str]


class SummaryInputs(Schema):
    manifest_sha256: str
    asr_sha256: str


class Judge(Schema):
    """Who rated the judged metrics; a judge not saying it is the official one is not."""

    model: str = "unknown model"
    official: bool = False
    keys: tuple[str, ...] = ()


class SummaryFile(TreeFile):
    """``summary.json`` of ``reference-evaluate``: the official evaluator's numbers."""

    expected_kind = SUMMARY_KIND

    schema_version: int = SCHEMA_VERSION
    inputs: SummaryInputs
    judge: Judge = Judge()
    subsets: dict[str, dict[str, bool | int | float | str | None]]

