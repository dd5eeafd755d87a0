"""The score manifest, described by pydantic models (unknown keys are errors).

See ``docs/transcripts-score.md`` for the schema with an example. The file is read by
:func:`speecheval.core.schema.load_document` (a repeated key is an error) and validated
into :class:`Manifest`, so every problem is one line naming the file, the key path, its
line and the sample (``sample en-review: manifest.yaml: samples[1].runs[0].transcript
(line 44): file not found: ...``).

Paths in the manifest are relative to the manifest's own folder (absolute paths are taken
as they are), so a manifest and its data can move together and the run does not depend
on the current directory. A relative path must stay inside that folder: one that leaves
it through ``..`` or a symbolic link is refused. Every referenced file must exist when the
manifest is read, so a bad path is reported before anything is scored or written.

This module imports pydantic: import it inside the command that reads a manifest.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import (
    AfterValidator,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ...core.decimal_seconds import MAX_SECONDS
from ...core.errors import InputError
from ...core.paths import resolve_inside
from ...core.schema import Document, Schema, load_document, validate
from .. import formats
from ..maturity import SPEC_REPEATS
from ..scenario_set import SetScenario
from ..text.normalize import normalize
from ..text.tokenize import Unit, mixed_tokens
from .audit import SampleAudit
from .declarations import SystemDeclarations
from .options import MeasureOptions

FORMAT = "speecheval.transcripts.manifest/1"
SampleKind = Literal["speech", "low_speech", "silence", "music"]
SAMPLE_KINDS: tuple[str, ...] = get_args(SampleKind)
NON_SPEECH_KINDS = frozenset({"silence", "music"})
HALLUCINATION_KINDS = frozenset({"silence", "music", "low_speech"})
_SAMPLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError(f"must be a non-empty string, got {value!r}")
    return value


Text = Annotated[str, AfterValidator(_non_blank)]


def _scorable_term(value: str) -> str:
    """A term counts as its tokens after the main protocol's normalisation, so one of
    punctuation alone would match nothing: refused here, with its key and line, rather
    than stopping the scoring of the sample with a traceback."""
    if not mixed_tokens(normalize(value)):
        raise ValueError(f"{value!r} is empty after normalisation (punctuation and spaces "
                         "are removed); a term needs a letter, digit or symbol")
    return value


Term = Annotated[str, AfterValidator(_non_blank), AfterValidator(_scorable_term)]


def _distinct(values: tuple[str, ...]) -> tuple[str, ...]:
    if len(set(values)) != len(values):
        raise ValueError("lists an entry twice")
    return values


def _file(value: Path | None, info: ValidationInfo, transcript: bool = False) -> Path | None:
    """An existing file named relative to the manifest's folder (and staying inside it)."""
    if value is None:
        return None
    if transcript and value.suffix.lower() not in formats.suffixes():
        raise ValueError(f"{str(value)!r} has an unknown transcript format; expected a "
                         f"suffix among {', '.join(formats.suffixes())}")
    return manifest_file(value, info)


def manifest_file(value: Path, info: ValidationInfo) -> Path:
    """The existing file ``value`` names, relative to the manifest's folder (staying inside
    it) unless absolute; a ValueError saying what is wrong otherwise."""
    manifest = Path((info.context or {})["path"])
    target = value
    if not value.is_absolute():
        try:
            target = resolve_inside(manifest.parent, value,
                                    root_name="the manifest's folder")
        except InputError as exc:
            raise ValueError(f"{str(value)!r} {exc.problem}") from None
    if not target.is_file():
        raise ValueError(f"file not found: {target}")
    return target


class Scenario(Schema):
    """A scenario: its token unit (word: WER, char: CER, mixed: MER) and maturity inputs
    (``covers``: the phase-one scenario it stands for, :mod:`..scenario_set`)."""

    unit: Unit
    core: bool = True
    reference_leak_free: bool = False
    covers: SetScenario | None = None

    @model_validator(mode="after")
    def _covers_core(self) -> Scenario:
        if self.covers is not None and not self.core:
            raise ValueError(f"covers {self.covers!r} but is not core: a scenario that "
                             "stands for a phase-one scenario is a core scenario")
        return self


class ReferenceSpec(Schema):
    """Reference files and metadata of a sample (terms come only from here)."""

    transcript: Path | None = None
    rttm: Path | None = None
    words: Path | None = None
    terms: Annotated[tuple[Term, ...], AfterValidator(_distinct)] = ()

    @field_validator("transcript")
    @classmethod
    def _transcript(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        return _file(value, info, transcript=True)

    @field_validator("rttm", "words")
    @classmethod
    def _other_files(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        return _file(value, info)


class ChunkCutsSpec(Schema):
    """Where a chunked run's chunks were cut, on the sample's timeline, and the margin
    within which a segment counts as ``across_cut`` (the chunker's ``cut_margin_s``)."""

    cuts_s: tuple[Annotated[float, Field(ge=0, allow_inf_nan=False)], ...]
    margin_s: Annotated[float, Field(ge=0, allow_inf_nan=False)]


class RunSpec(Schema):
    """One run (repeat) of the system on a sample; ``failure`` (``failed:`` in the file)
    set means it failed and has no files; ``chunk_cuts``: a chunked run's cuts, so its
    rates inside chunks and near cuts are scored apart (:mod:`.chunk_regions`)."""

    repeat: Annotated[int, Field(ge=1)] = 1
    failure: Annotated[Text | None, Field(alias="failed")] = None
    transcript: Path | None = None
    rttm: Path | None = None
    words: Path | None = None
    chunk_cuts: ChunkCutsSpec | None = None

    @field_validator("transcript")
    @classmethod
    def _transcript(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        _no_file_when_failed(value, info, "transcript")
        if value is None and info.data.get("failure") is None:
            raise ValueError("is required for a run that did not fail")
        return _file(value, info, transcript=True)

    @field_validator("rttm", "words")
    @classmethod
    def _other_files(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        _no_file_when_failed(value, info, str(info.field_name))
        return _file(value, info)


def _no_file_when_failed(value: Path | None, info: ValidationInfo, key: str) -> None:
    if value is not None and info.data.get("failure") is not None:
        raise ValueError(f"a failed run has no files, but {key!r} is given")


class SampleSpec(SampleAudit):
    """One recording: scenario, audio duration, kind, independence ids, files, and the
    data audit (:class:`.audit.SampleAudit`)."""

    id: str
    scenario: Text
    duration_s: float
    kind: SampleKind = "speech"
    source: Text
    speakers: Annotated[tuple[Text, ...], AfterValidator(_distinct)] = ()
    reference: ReferenceSpec = ReferenceSpec()
    runs: tuple[RunSpec, ...]

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not _SAMPLE_ID.match(value):
            raise ValueError(f"{value!r} may hold only letters, digits, '.', '_' and '-'")
        return value

    @field_validator("duration_s")
    @classmethod
    def _duration(cls, value: float) -> float:
        if not 0 < value <= MAX_SECONDS:
            raise ValueError(f"must be a positive number of seconds up to {MAX_SECONDS:g}, "
                             f"got {value!r}")
        return value

    @field_validator("reference")
    @classmethod
    def _reference(cls, value: ReferenceSpec, info: ValidationInfo) -> ReferenceSpec:
        kind = info.data.get("kind", "speech")
        speech = kind not in NON_SPEECH_KINDS
        if speech and value.transcript is None:
            raise ValueError(f"a {kind} sample needs a reference transcript")
        if not speech and value.transcript is not None:
            raise ValueError(f"a {kind} sample has no reference transcript; it is scored by "
                             "its hallucinated output only")
        return value

    @field_validator("runs")
    @classmethod
    def _runs(cls, value: tuple[RunSpec, ...]) -> tuple[RunSpec, ...]:
        if not value:
            raise ValueError("must list at least one run")
        repeats = [run.repeat for run in value]
        if len(set(repeats)) != len(repeats):
            raise ValueError("a repeat index appears twice")
        return tuple(sorted(value, key=lambda run: run.repeat))


class ExtraMeasures(Schema):
    """meeteval's measures beyond the spec, off by default: ORC-WER (``orc: true``) and
    tcpWER with the hypothesis collar ``tcp_collar_s`` (seconds; meeteval suggests 5)."""

    orc: bool = False
    tcp_collar_s: Annotated[float | None, Field(ge=0, le=MAX_SECONDS)] = None


class Judgement(Schema):
    """A judgement the report states, checked against the maturity levels (docs:
    transcripts-score.md, Report wording)."""

    text: Text
    scenario: Text | None = None  # None: a claim across scenarios


class Manifest(SystemDeclarations):
    """A validated manifest; ``path`` is the file it was read from (the system's
    declarations: :class:`.declarations.SystemDeclarations`)."""

    format: Literal["speecheval.transcripts.manifest/1"]
    system: Text
    required_repeats: Annotated[int, Field(ge=1)] = SPEC_REPEATS
    speaker_attribution: bool | None = None  # None: inferred from the successful runs
    token_timestamps: bool | None = None
    scenarios: dict[Text, Scenario]
    samples: tuple[SampleSpec, ...]
    judgements: tuple[Judgement, ...] = ()
    hypotheses: tuple[Text, ...] = ()
    extra_measures: ExtraMeasures = ExtraMeasures()

    _path: Path = PrivateAttr()
    _judgement_lines: tuple[int | None, ...] = PrivateAttr(default=())

    @field_validator("scenarios")
    @classmethod
    def _some_scenarios(cls, value: dict[str, Scenario]) -> dict[str, Scenario]:
        if not value:
            raise ValueError("must declare at least one scenario")
        return dict(sorted(value.items()))

    @field_validator("samples")
    @classmethod
    def _some_samples(cls, value: tuple[SampleSpec, ...]) -> tuple[SampleSpec, ...]:
        if not value:
            raise ValueError("must list at least one sample")
        return value

    @property
    def path(self) -> Path:
        """The manifest file."""
        return self._path

    def measure_options(self) -> MeasureOptions:
        """The measures beyond the spec this manifest selects (and the chunk regions when
        some run names its chunk cuts)."""
        return MeasureOptions(self.extra_measures.orc, self.extra_measures.tcp_collar_s,
                              any(run.chunk_cuts is not None for sample in self.samples
                                  for run in sample.runs))

    def judgement_where(self, index: int) -> str:
        """``judgements[i] (line n)``: where judgement ``index`` is written."""
        line = self._judgement_lines[index] if index < len(self._judgement_lines) else None
        return f"judgements[{index}]" + ("" if line is None else f" (line {line})")


def load_manifest(path: Path) -> Manifest:
    """Read and validate a manifest; any problem is an InputError naming file, key, line
    and sample."""
    document = load_document(path, what="manifest")
    manifest = validate(Manifest, document, what="manifest", sample_key="id")
    _check_across_samples(manifest, document)
    manifest._path = path
    manifest._judgement_lines = tuple(document.line(("judgements", index, "text"))
                                      for index in range(len(manifest.judgements)))
    return manifest


def _check_across_samples(manifest: Manifest, document: Document) -> None:
    """What no single sample can check: ids are distinct, scenarios are declared and used."""
    first: dict[str, int] = {}
    for index, sample in enumerate(manifest.samples):
        line = document.line(("samples", index, "id"))
        if sample.id in first:
            earlier = first[sample.id]
            raise InputError(f"samples[{index}].id (line {line}): appears twice (first "
                             f"samples[{earlier}], line "
                             f"{document.line(('samples', earlier, 'id'))})",
                             path=document.path, sample_id=sample.id)
        first[sample.id] = index
        if sample.scenario not in manifest.scenarios:
            raise InputError(f"samples[{index}].scenario (line "
                             f"{document.line(('samples', index, 'scenario'))}): "
                             f"{sample.scenario!r} is not declared under scenarios",
                             path=document.path, sample_id=sample.id)
    for index, judgement in enumerate(manifest.judgements):
        if judgement.scenario is not None and judgement.scenario not in manifest.scenarios:
            raise InputError(f"judgements[{index}].scenario (line "
                             f"{document.line(('judgements', index, 'scenario'))}): "
                             f"{judgement.scenario!r} is not declared under scenarios",
                             path=document.path)
    unused = sorted(set(manifest.scenarios) - {s.scenario for s in manifest.samples})
    if unused:
        raise InputError(f"scenarios.{unused[0]} (line "
                         f"{document.line(('scenarios', unused[0]))}): is declared but has "
                         "no samples", path=document.path)

