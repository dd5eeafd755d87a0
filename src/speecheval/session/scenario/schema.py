"""The scenario file's shape as :mod:`speecheval.core.schema` models.

These models check each value where it stands: unknown keys (with the allowed ones
listed), types, finite numbers, the one-hour cap on every ``*_ms`` value and the
limits of each key. What depends on several keys (the turn defaults, ``frame_ms``
against ``sample_rate``, the audio source, the live detector) is checked by
:func:`speecheval.session.scenario.load.load_scenario`, which turns these models into the
:class:`~speecheval.session.scenario.model.Scenario` the runners use.

Importing this module imports pydantic: ``load_scenario`` imports it when it reads a
file, so that ``speecheval --help`` does not.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields, is_dataclass
from functools import reduce
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from pydantic import AfterValidator, BeforeValidator, Field, JsonValue, create_model

from ...core.schema import Schema
from ...vad.streaming import VadSettings
from .conditions import (
    CodecSpec,
    Conditions,
    EchoSpec,
    NetworkSpec,
    NoiseSpec,
    Reflection,
)
from .model import (
    ASSERTIONS,
    DEFAULT_FRAME_MS,
    DEFAULT_FREQ_HZ,
    DEFAULT_LEVEL_DB,
    DEFAULT_MAX_DURATION_MS,
    DEFAULT_MAX_STOP_MS,
    DEFAULT_RESPONSE_TIMEOUT_MS,
    DEFAULT_SAMPLE_RATE,
    DEFAULT_START_TIMEOUT_MS,
    DEFAULT_TAIL_MS,
    MAX_MS,
    MAX_SAMPLE_RATE,
    Anchor,
    Expectation,
    SynthKind,
    VadEngine,
)
from .wer import normalize_words

S = TypeVar("S")


def _within_an_hour(value: float) -> float:
    if value > MAX_MS:
        raise ValueError(f"must be at most {MAX_MS:.0f} ms (one hour), got {value:g}")
    return value


def _at_least(minimum: float) -> Callable[[float], float]:
    def check(value: float) -> float:
        if value < minimum:
            raise ValueError(f"must be >= {minimum:g}, got {value:g}")
        return value
    return check


def _above(limit: float) -> Callable[[float], float]:
    def check(value: float) -> float:
        if value <= limit:
            raise ValueError(f"must be > {limit:g}, got {value:g}")
        return value
    return check


def _at_most(maximum: int) -> Callable[[int], int]:
    def check(value: int) -> int:
        if value > maximum:
            raise ValueError(f"must be <= {maximum}, got {value}")
        return value
    return check


def _non_empty(value: str) -> str:
    if not value.strip():
        raise ValueError(f"must be a non-empty string, got {value!r}")
    return value


def _empty_if_null(value: object) -> object:
    """A key written with nothing after it (``defaults:``) is an empty mapping."""
    return {} if value is None else value


Ms = Annotated[float, AfterValidator(_within_an_hour)]
MsAtLeast0 = Annotated[Ms, AfterValidator(_at_least(0))]
MsAbove0 = Annotated[Ms, AfterValidator(_above(0))]
Text = Annotated[str, AfterValidator(_non_empty)]
NullIsEmpty = BeforeValidator(_empty_if_null)


class StartModel(Schema):
    """``start``: the anchor and the delay; unset ones depend on the turn's place."""

    after: Anchor | None = None
    delay_ms: MsAtLeast0 | None = None
    timeout_ms: MsAtLeast0 = DEFAULT_START_TIMEOUT_MS


class AudioModel(Schema):
    """``audio``: a file, or a synthesized signal and its settings."""

    file: Text | None = None
    synth: SynthKind | None = None
    duration_ms: MsAbove0 | None = None
    level_db: float = DEFAULT_LEVEL_DB
    freq_hz: Annotated[float, AfterValidator(_above(0))] = DEFAULT_FREQ_HZ
    seed: Annotated[int, AfterValidator(_at_least(0))] = 0
    say: Text | None = None
    voice: Text | None = None


def _regex(value: str) -> str:
    import re

    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"is not a valid regular expression: {exc}") from None
    return value


def _some(phrases: tuple[str, ...]) -> tuple[str, ...]:
    """At least one phrase, each of at least one word once normalized as the reply is: a
    phrase of no words would be found in every reply."""
    if not phrases:
        raise ValueError("must list at least one phrase")
    for phrase in phrases:
        if not normalize_words(phrase):
            raise ValueError(f"phrase {phrase!r} has no words (after lowercasing and "
                             "removing punctuation), so every reply would contain it")
    return phrases


Phrases = Annotated[tuple[Text, ...], AfterValidator(_some)]


class ReplyModel(Schema):
    """``turns[].reply``: what the agent's reply must (not) say, heard by Whisper."""

    says_any: Phrases | None = None
    says_none: Phrases | None = None
    matches: Annotated[Text, AfterValidator(_regex)] | None = None
    text: Text | None = None
    max_wer: Annotated[float, AfterValidator(_at_least(0))] | None = None


class TurnModel(Schema):
    """One entry of ``turns``; ``audio`` is checked for presence with a hint."""

    id: Text | None = None
    audio: AudioModel | None = None
    start: Annotated[StartModel, NullIsEmpty] = StartModel()
    expect: Expectation = "respond"
    text: Text | None = None
    response_timeout_ms: MsAtLeast0 | None = None
    max_stop_ms: MsAtLeast0 | None = None
    reply: ReplyModel | None = None


class DefaultsModel(Schema):
    """``defaults``: limits for every turn that does not set its own."""

    response_timeout_ms: MsAtLeast0 = DEFAULT_RESPONSE_TIMEOUT_MS
    max_stop_ms: MsAtLeast0 = DEFAULT_MAX_STOP_MS


_VAD = VadSettings()


class TrackVadModel(Schema):
    """``vad.user`` / ``vad.agent``: the engine and the energy detector's settings."""

    engine: VadEngine = "energy"
    threshold_db: float = _VAD.threshold_db
    hysteresis_db: Annotated[float, AfterValidator(_at_least(0))] = _VAD.hysteresis_db
    frame_ms: MsAbove0 = _VAD.frame_ms
    min_speech_ms: MsAtLeast0 = _VAD.min_speech_ms
    min_silence_ms: MsAtLeast0 = _VAD.min_silence_ms


class VadModel(Schema):
    user: Annotated[TrackVadModel, NullIsEmpty] = TrackVadModel()
    agent: Annotated[TrackVadModel, NullIsEmpty] = TrackVadModel()


class AgentModel(Schema):
    """``agent`` (voicebench: ``adapter``): the agent's name and its options, which the
    agent itself checks."""

    type: Text = "mock"
    options: Annotated[dict[str, JsonValue], NullIsEmpty] = Field(
        default_factory=dict)


if TYPE_CHECKING:
    class AssertionsModel(Schema):
        """``assert``: one optional limit per key of ``ASSERTIONS``."""
else:  # one field per key of ASSERTIONS: a finite number, the ``*_ms`` ones within an hour
    AssertionsModel = create_model(
        "AssertionsModel", __base__=Schema,
        **{key: (Ms if key.endswith("_ms") else float, 0.0) for key in ASSERTIONS})


def _probability(value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"must be a probability between 0 and 1, got {value:g}")
    return value


class JudgeModel(Schema):
    """``judge``: the caller's task and the OpenAI-compatible endpoint that judges it."""

    task: Text
    model: Text
    base_url: Text
    api_key_env: Text = "OPENAI_API_KEY"
    max_attempts: Annotated[int, AfterValidator(_at_least(1)),
                            AfterValidator(_at_most(10))] = 3
    timeout_s: Annotated[float, AfterValidator(_above(0))] = 60.0


def _schema_type(annotation: Any, models: Mapping[type, type[Schema]]) -> Any:
    """A spec field's type with the specs in it replaced by their models."""
    if annotation in models:
        return models[annotation]
    args = get_args(annotation)
    if get_origin(annotation) is tuple:
        return tuple[_schema_type(args[0], models), ...]  # type: ignore[misc]
    if get_origin(annotation) in (Union, UnionType):
        return reduce(operator.or_, (_schema_type(arg, models) for arg in args))
    return annotation


def _limited(name: str, annotation: Any, limits: Mapping[str, Any]) -> Any:
    """``annotation`` with the field's limits (see :func:`.conditions.limited`) checked;
    on ``X | None``, on the ``X``."""
    checks = [AfterValidator(_within_an_hour)] if name.endswith("_ms") else []
    if limits.get("positive"):
        checks.append(AfterValidator(_above(0)))
    if limits.get("low") is not None:
        checks.append(AfterValidator(_at_least(limits["low"])))
    if limits.get("high") is not None:
        checks.append(AfterValidator(_at_most(limits["high"])))
    if limits.get("probability"):
        checks.append(AfterValidator(_probability))
    if not checks:
        return annotation
    args = get_args(annotation)
    if type(None) in args:
        (inner,) = (arg for arg in args if arg is not type(None))
        return Annotated[inner, *checks] | None
    return Annotated[annotation, *checks]


def spec_model(spec: type, models: dict[type, type[Schema]], key: str) -> type[Schema]:
    """The schema of the ``conditions`` part ``key`` made from its dataclass ``spec``: a
    key per field, with its type, default and limits; the specs it holds (in ``models``,
    to which this one is added) as their models."""
    hints = get_type_hints(spec)
    keys: dict[str, Any] = {
        f.name: (_limited(f.name, _schema_type(hints[f.name], models), f.metadata),
                 ... if f.default is MISSING else f.default)
        for f in fields(spec)}
    model = create_model(f"{spec.__name__}Model", __base__=Schema,
                         __doc__=f"``{key}``: {spec.__doc__}", **keys)
    models[spec] = model
    return model


def spec_from(spec: type[S], model: Schema) -> S:
    """The dataclass ``spec`` holding what ``model`` (made by :func:`spec_model`) read."""
    hints = get_type_hints(spec)

    def value(annotation: Any, given: Any) -> Any:
        if isinstance(given, Schema):
            (nested,) = (arg for arg in (annotation, *get_args(annotation))
                         if isinstance(arg, type) and is_dataclass(arg))
            return spec_from(nested, given)
        if isinstance(given, tuple):
            return tuple(value(get_args(annotation)[0], item) for item in given)
        return given

    return spec(**{f.name: value(hints[f.name], getattr(model, f.name))
                   for f in fields(spec)})  # type: ignore[arg-type]


_MODELS: dict[type, type[Schema]] = {}  # the conditions' specs, nested ones first
spec_model(Reflection, _MODELS, "conditions.echo.reflections")
spec_model(EchoSpec, _MODELS, "conditions.echo")
spec_model(NoiseSpec, _MODELS, "conditions.noise")
spec_model(CodecSpec, _MODELS, "conditions.codec")
spec_model(NetworkSpec, _MODELS, "conditions.network")

if TYPE_CHECKING:
    ConditionsModel = Schema
else:  # ``conditions``: what happens to the user's audio on its way to the agent
    ConditionsModel = spec_model(Conditions, _MODELS, "conditions")


def _turns_not_empty(turns: tuple[TurnModel, ...]) -> tuple[TurnModel, ...]:
    if not turns:
        raise ValueError("must be a non-empty list of turns")
    return turns


class ScenarioModel(Schema):
    """A scenario file (voicebench 0.2.0's keys, plus ``agent``, ``vad`` engines and
    ``synth`` kinds)."""

    name: Text
    description: Text | None = None
    sample_rate: Annotated[int, AfterValidator(_at_least(8000)),
                           AfterValidator(_at_most(MAX_SAMPLE_RATE))] = DEFAULT_SAMPLE_RATE
    frame_ms: Annotated[Ms, AfterValidator(_at_least(5))] = DEFAULT_FRAME_MS
    tail_ms: MsAtLeast0 = DEFAULT_TAIL_MS
    max_duration_ms: MsAbove0 = DEFAULT_MAX_DURATION_MS
    vad: Annotated[VadModel, NullIsEmpty] = VadModel()
    adapter: Annotated[AgentModel, NullIsEmpty] | None = None
    agent: Annotated[AgentModel, NullIsEmpty] | None = None
    defaults: Annotated[DefaultsModel, NullIsEmpty] = DefaultsModel()
    turns: Annotated[tuple[TurnModel, ...], AfterValidator(_turns_not_empty)]
    assert_: Annotated[AssertionsModel, NullIsEmpty] = Field(AssertionsModel(), alias="assert")
    conditions: ConditionsModel | None = None
    judge: JudgeModel | None = None
