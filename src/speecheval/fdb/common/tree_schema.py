"""The files of a reference tree as pydantic schemas (``core.schema``).

Why a module of its own: pydantic is imported only by the commands that read a tree, not
by ``speecheval --help``. The tree's top level may carry a writer's own records (the
builder's ``generator``, ``asr.json``'s ``manifest_sha256``); inside ``dataset``, each
sample and the reference summary's ``inputs`` and ``judge``, an unknown key is refused,
so a misspelt key cannot read as absent. The rules of ``manifest.json`` and ``asr.json``
are ``tree_rules``' (the validators here call them), which ``tree_fast`` applies too.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import ConfigDict, field_validator, model_validator

from ...core.schema import Schema
from . import tree_rules
from .tree import ASR_KIND, MANIFEST_KIND, SCHEMA_VERSION, SUMMARY_KIND

OPEN = ConfigDict(extra="allow")
"""The top level of a tree file: writers may add their own records there."""


def _hold(problem: str | None) -> None:
    """A rule of ``tree_rules`` broken: its words, for ``core.schema`` to place."""
    if problem is not None:
        raise ValueError(problem)


class TreeFile(Schema):
    """The header of every tree file: its kind and the schema version."""

    model_config = OPEN
    expected_kind: ClassVar[str]

    kind: str
    schema_version: int

    @field_validator("kind")
    @classmethod
    def _kind(cls, kind: str) -> str:
        _hold(tree_rules.kind_problem(kind, cls.expected_kind))
        return kind

    @field_validator("schema_version")
    @classmethod
    def _version(cls, value: int) -> int:
        _hold(tree_rules.version_problem(value))
        return value


class DatasetEntry(Schema):
    """``manifest.json`` ``dataset``: the revision and the full size of each subset."""

    revision: str
    declared: dict[str, int]

    @field_validator("declared")
    @classmethod
    def _known_subsets(cls, declared: dict[str, int]) -> dict[str, int]:
        _hold(tree_rules.declared_problem(declared))
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
    # tree_rules.TRACE_RECORDS and TRACE_LISTS: what `reference-export` adds for a reader
    # to trace a sample back to its capture; scoring never reads them.
    capture: dict[str, Any] | None = None
    playout: dict[str, Any] | None = None
    pacing: dict[str, Any] | None = None
    eligibility_details: tuple[str, ...] | None = None
    faults_after_t: tuple[Any, ...] | None = None

    @field_validator("subset")
    @classmethod
    def _known_subset(cls, subset: str) -> str:
        _hold(tree_rules.subset_problem(subset))
        return subset

    @field_validator("input_duration_s")
    @classmethod
    def _at_least_one_window(cls, duration: float) -> float:
        _hold(tree_rules.duration_problem(duration))
        return duration

    @model_validator(mode="after")
    def _consistent(self) -> SampleEntry:
        _hold(tree_rules.sample_problem(self.sample_id, self.subset, self.task,
                                        self.eligible, self.reasons, self.files))
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

