"""What a transcripts measure is, and the registry that every stage iterates over.

Scoring one run is a typed flow: :class:`RunInputs` (the sample, both sides' files read
once, the text alignment) -> one :class:`Outcome` per measure -> :class:`RunScore`
(results by measure name, the reasons for what was not scored, a preview). The stages
after it ask the registry instead of naming measures: ``samples.jsonl`` writes
:meth:`Measure.row` of each, the scenario tables hold :meth:`Measure.table` of each (a
typed entry of :mod:`.table_entries`, or any result with a ``report_dict``).

A new measure is one module in :mod:`.measures`: a :class:`Measure` subclass with a
``name`` (its key in ``samples.jsonl``, ``status`` and the scenario table) joins the
registry when its class is defined, and :func:`measures` imports every module there the
first time it is asked.
"""

from __future__ import annotations

import importlib
import pkgutil
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from ...core.timeline import Span
from ..aggregate import SampleValue
from ..formats.rttm import RTTM
from ..formats.segment import Segment
from ..maturity import Maturity
from ..text.align import EditPath
from ..text.tokenize import Unit
from .capabilities import SystemSupport
from .options import MeasureOptions
from .table_entries import Graded, Rate, V

if TYPE_CHECKING:
    from .manifest import RunSpec, SampleSpec

R = TypeVar("R")
T = TypeVar("T")
Op = Literal["=", "S", "D", "I"]


@dataclass(frozen=True)
class Side:
    """One side of a run (the reference, or the system's output), read once.

    ``segments`` of the transcript; ``words``: word-timed segments, if any; ``turns``:
    speaker turns (an RTTM, or the timed speaker segments), if any; ``raw``: the raw tagged
    text when the transcript is raw model output; ``text``: the words as one text.
    """

    segments: tuple[Segment, ...]
    words: tuple[Segment, ...] | None
    turns: RTTM | None
    raw: str | None
    text: str


@dataclass(frozen=True)
class Alignment:
    """Both texts as tokens of the scenario's unit, and the edit path between them."""

    reference_tokens: list[str]
    hypothesis_tokens: list[str]
    path: EditPath


@dataclass(frozen=True)
class RunInputs:
    """Everything a measure may use to score one run."""

    sample: SampleSpec
    unit: Unit
    run: RunSpec
    support: SystemSupport
    reference: Side
    hypothesis: Side
    alignment: Alignment
    options: MeasureOptions

    @property
    def failed(self) -> bool:
        """The run failed (its output is scored as empty where a reference gives a rate)."""
        return self.run.failure is not None


@dataclass(frozen=True)
class Outcome(Generic[R]):
    """A measure's result for one run (``None``: not scored) and status notes by key
    (why it was not scored, or what was noticed while scoring)."""

    result: R | None = None
    status: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Preview:
    """The first steps of the edit path and turns of both sides, for people to read
    (a turn is a span labelled by its speaker)."""

    steps: tuple[tuple[Op, str, str], ...]
    total_steps: int
    reference_turns: tuple[Span, ...]
    hypothesis_turns: tuple[Span, ...]
    total_turns: int


@dataclass(frozen=True, eq=False)
class RunScore:
    """All measures of one run: ``results`` by measure name; what is missing has its
    reason in ``status``."""

    sample: SampleSpec
    unit: Unit
    repeat: int
    failure: str | None
    results: Mapping[str, object]
    status: Mapping[str, str]
    preview: Preview
    options: MeasureOptions

    def get(self, measure: type[Measure[R]]) -> R | None:
        """The result of ``measure`` for this run, typed; ``None`` when not scored."""
        result = self.results.get(measure.name)
        return result  # type: ignore[return-value]  # stored by that measure's score()


class ScenarioView(Protocol):
    """What a measure's scenario table may ask about the scenario's samples."""

    def summary(self, values: list[SampleValue]) -> Rate | None:
        """Rate summary with the maturity of the samples that give a rate."""

    def graded(self, value: V, sample_ids: set[str]) -> Graded[V]:
        """``value`` with the maturity and evidence of the samples ``sample_ids`` that
        yield it."""

    def level(self, sample_ids: set[str]) -> Maturity:
        """Maturity of a measure yielded by ``sample_ids``."""


class Measure(ABC, Generic[R]):
    """One measure of a run. Subclasses set ``name`` and implement :meth:`score`."""

    name: ClassVar[str]
    # False for parity tracks, which go to files of their own.
    in_sample_row: ClassVar[bool] = True
    in_scenario_table: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            known = _REGISTRY.get(cls.name)
            if known is not None and known.__qualname__ != cls.__qualname__:
                raise ValueError(f"measure name {cls.name!r} is taken by {known.__qualname__}")
            _REGISTRY[cls.name] = cls

    def selected(self, options: MeasureOptions) -> bool:
        """Whether this measure is scored and reported at all (default: always)."""
        return True

    @abstractmethod
    def score(self, inputs: RunInputs) -> Outcome[R]:
        """The result for one run, or the reason it is not scored."""

    def row(self, result: R, run: RunScore) -> Any:
        """The run's entry in ``samples.jsonl`` (default: the result's report view)."""
        return _report(result)

    def table(self, runs: Sequence[RunScore], view: ScenarioView) -> object:
        """The scenario's entry: a typed entry or result that the scenario table's writer
        puts in the file through its ``report_dict()`` (a plain JSON value goes as it
        is; ``None``: nothing to report). Default: the results of all its runs, summed."""
        return pool(run.get(type(self)) for run in runs)


def _report(value: Any) -> Any:
    return value.report_dict()


_REGISTRY: dict[str, type[Measure[Any]]] = {}
_discovered = False


def measures() -> tuple[Measure[Any], ...]:
    """One instance of every registered measure, by name."""
    global _discovered
    if not _discovered:
        package = f"{__package__}.measures"
        folder = Path(__file__).parent / "measures"
        for module in pkgutil.iter_modules([str(folder)]):
            if not module.name.startswith("_"):
                importlib.import_module(f"{package}.{module.name}")
        _discovered = True
    return tuple(_REGISTRY[name]() for name in sorted(_REGISTRY))


def selected_measures(options: MeasureOptions) -> tuple[Measure[Any], ...]:
    """The registered measures that ``options`` select, by name."""
    return tuple(measure for measure in measures() if measure.selected(options))


def pool(items: Iterable[T | None]) -> T | None:
    """The sum of the results present, or ``None`` when there is none."""
    present = [item for item in items if item is not None]
    if not present:
        return None
    total = present[0]
    for item in present[1:]:
        total = total + item  # type: ignore[operator]
    return total


def sample_values(runs: Sequence[RunScore],
                  pick: Callable[[RunScore], tuple[float, float] | None]) -> list[SampleValue]:
    """``(numerator, denominator)`` of each run that has one, as aggregation inputs."""
    result = []
    for run in runs:
        pair = pick(run)
        if pair is not None:
            result.append(SampleValue(run.sample.id, run.repeat, run.sample.duration_s,
                                      pair[0], pair[1], run.failure is not None))
    return result
