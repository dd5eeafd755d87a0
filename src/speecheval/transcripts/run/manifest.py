"""The run manifest: samples (audio, optional gold window) and the systems to call.

Schema and example in ``docs/transcripts-run.md``. Read through :mod:`speecheval.core.schema`
(unknown keys and repeated keys are errors naming the file, key path, line and sample);
paths are relative to the manifest's folder and must stay inside it. ``whisper-local``
needs no entry: it is built in with its defaults. The scoring keys (``scenarios``, and per
sample ``scenario``, ``source``, ``kind``, ``speakers``, ``reference``: those of the score
manifest) are optional here; ``transcripts score --run`` refuses a sample that lacks what
it needs.

This module imports pydantic: import it inside the command that reads a manifest.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from ...core.errors import InputError
from ...core.schema import Schema, load_document, validate
from .. import formats
from ..lineage import ARBITRATION_FOLDER, COMMAND_FOLDERS, GATE_FOLDER, SCORE_FOLDER
from ..score.audit import SampleAudit
from ..score.declarations import SystemDeclarations
from ..score.manifest import ReferenceSpec, SampleKind, Scenario, Text, manifest_file

FORMAT = "speecheval.transcripts.run-manifest/1"
WHISPER_LOCAL = "whisper-local"
GOLD_WINDOW_S = (480.0, 720.0)
"""The spec's gold diagnostic window: 8 to 12 minutes."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_COMMANDS = {GATE_FOLDER: "gate", ARBITRATION_FOLDER: "arbitrate",
             SCORE_FOLDER: "score --run"}
Positive = Annotated[float, Field(gt=0)]


def _name(value: str) -> str:
    if not _NAME.match(value):
        raise ValueError(f"{value!r} may hold only letters, digits, '.', '_' and '-'")
    return value


class WhisperLocalSystem(Schema):
    """faster-whisper with the bundled tiny.en; the settings a user may change."""

    adapter: Literal["whisper-local"]
    condition_on_previous_text: bool = False
    cpu_threads: Annotated[int, Field(ge=1)] = 1
    batch_size: Annotated[int, Field(ge=1)] | None = None
    """Decode with faster-whisper's batched pipeline, this many 30 s chunks at once."""

    @model_validator(mode="after")
    def _batched_alone(self) -> WhisperLocalSystem:
        if self.batch_size is not None and self.condition_on_previous_text:
            raise ValueError("batch_size decodes every chunk on its own: "
                             "condition_on_previous_text must be false with it")
        return self


class OpenAICompatibleSystem(SystemDeclarations):
    """A server's ``/v1/audio/transcriptions`` (with the declarations of
    :mod:`..score.declarations`: where its speaker labels and timestamps come from)."""

    adapter: Literal["openai-compatible"]
    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    language: str = "en"
    max_attempts: Annotated[int, Field(ge=1)] = 4
    backoff_s: Annotated[float, Field(ge=0)] = 1.0
    timeout_s: Positive = 300.0
    native_context_s: Positive | None = None


class CommandSystem(SystemDeclarations):
    """A user program: reads the WAV at ``{input}``, writes a transcript at ``{output}``
    (with the declarations of :mod:`..score.declarations`)."""

    adapter: Literal["command"]
    command: tuple[str, ...]
    output_suffix: str
    version: str
    timeout_s: Positive = 3600.0
    native_context_s: Positive | None = None
    env: tuple[str, ...] = ()
    """The environment variables the program is given besides a minimal base (PATH,
    HOME, the locale, TMPDIR, TZ); their values count as the run's secrets."""

    @field_validator("command")
    @classmethod
    def _placeholders(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("must name a program")
        joined = " ".join(value)
        if "{input}" not in joined or "{output}" not in joined:
            raise ValueError("must contain {input} and {output} (also allowed: {seed}, "
                             "{sample})")
        return value

    @field_validator("output_suffix")
    @classmethod
    def _suffix(cls, value: str) -> str:
        if value.lower() not in formats.suffixes():
            raise ValueError(f"{value!r} is not a transcript format; expected one of "
                             f"{', '.join(formats.suffixes())}")
        return value.lower()


SystemSpec = Annotated[WhisperLocalSystem | OpenAICompatibleSystem | CommandSystem,
                       Field(discriminator="adapter")]


class GoldWindow(Schema):
    """The physical crop every system gets on the gold_diagnostic_window track."""

    start_s: Annotated[float, Field(ge=0)]
    end_s: Positive

    @model_validator(mode="after")
    def _length(self) -> GoldWindow:
        length = self.end_s - self.start_s
        low, high = GOLD_WINDOW_S
        if not low <= length <= high:
            raise ValueError(f"must last 8 to 12 minutes ({low:g}-{high:g} s), "
                             f"got {length:g} s")
        return self


class SampleSpec(SampleAudit):
    """One recording to transcribe, with its data audit (:mod:`..score.audit`)."""

    id: str
    audio: Path
    gold_window: GoldWindow | None = None
    last_speech_s: Annotated[float, Field(ge=0)] | None = None
    # what `transcripts score --run` needs to score the sample (docs/transcripts-run.md)
    scenario: Text | None = None
    source: Text | None = None
    kind: SampleKind = "speech"
    speakers: tuple[Text, ...] = ()
    reference: ReferenceSpec | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        return _name(value)

    @field_validator("audio")
    @classmethod
    def _audio(cls, value: Path, info: ValidationInfo) -> Path:
        return manifest_file(value, info)


class RunManifest(Schema):
    """A validated run manifest; ``path`` is the file it was read from."""

    format: Literal["speecheval.transcripts.run-manifest/1"]
    systems: dict[str, SystemSpec] = {}
    scenarios: dict[Text, Scenario] = {}
    samples: tuple[SampleSpec, ...]

    _path: Path = PrivateAttr()

    @field_validator("systems")
    @classmethod
    def _system_names(cls, value: dict[str, SystemSpec]) -> dict[str, SystemSpec]:
        for name, spec in value.items():
            _name(name)
            if name in COMMAND_FOLDERS:
                raise ValueError(f"{name!r} names the folder RUN/derived/{name}/ of "
                                 f"`transcripts {_COMMANDS[name]}`, which would clash with "
                                 "this system's transcripts there; give the system another "
                                 "name")
            if name == WHISPER_LOCAL and not isinstance(spec, WhisperLocalSystem):
                raise ValueError(f"{WHISPER_LOCAL!r} is the built-in whisper-local system; "
                                 "give another system another name")
        return value

    @field_validator("samples")
    @classmethod
    def _samples(cls, value: tuple[SampleSpec, ...]) -> tuple[SampleSpec, ...]:
        if not value:
            raise ValueError("must list at least one sample")
        ids = [s.id for s in value]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"sample id {twice[0]!r} appears twice")
        return value

    @property
    def path(self) -> Path:
        return self._path

    def system(self, name: str) -> WhisperLocalSystem | OpenAICompatibleSystem | CommandSystem:
        """The system called ``name`` (``whisper-local`` is there by default)."""
        if name in self.systems:
            return self.systems[name]
        if name == WHISPER_LOCAL:
            return WhisperLocalSystem(adapter="whisper-local")
        known = sorted({*self.systems, WHISPER_LOCAL})
        raise InputError(f"--system {name}: not a system of the manifest; known: "
                         f"{', '.join(known)}", path=self._path)


def load_run_manifest(path: Path) -> RunManifest:
    """Read and validate a run manifest (an InputError names file, key, line and sample)."""
    document = load_document(path, what="run manifest")
    manifest = validate(RunManifest, document, what="run manifest", sample_key="id")
    manifest._path = path
    return manifest
