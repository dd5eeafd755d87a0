"""Typed entries of a scenario table: what a measure reports for one scenario.

A measure's :meth:`~.measure.Measure.table` returns one of these (or any result with a
``report_dict``), never a dict: a rate summary or pooled counts with the maturity of the
samples that yield them (:class:`Graded`), a speaker rate with its scored and unsupported
runs (:class:`SpeakerRate`), the diarization and timestamp entries. The writers read them
by attribute (the Markdown and HTML tables, the wording) and put them in ``scenarios.json``
through ``report_dict()``, the one place each entry's file shape is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ...core.results import Reported
from ..aggregate import RateSummary
from ..diarization.render import score_dict
from ..diarization.result import DiarizationScore
from ..maturity import Maturity, ScenarioEvidence
from ..text.prf import MatchCounts
from ..timestamps.coverage import SpeechCoverage
from ..timestamps.token_times import TokenTiming
from ..timestamps.turns import TurnTiming

V = TypeVar("V", bound=Reported)
"""A value with a file shape (what :class:`Graded` grades)."""


def evidence_dict(evidence: ScenarioEvidence | None) -> dict[str, Any] | None:
    """The counts of the samples a value rests on, as the files name them."""
    if evidence is None:
        return None
    return {"samples": evidence.samples, "independent_sources": evidence.sources,
            "independent_speakers": evidence.speakers, "missing_runs": evidence.missing_runs}


@dataclass(frozen=True)
class Graded(Generic[V]):
    """A scenario's value of one measure and the maturity of the samples that yield it
    (``evidence`` ``None``: no sample yields it)."""

    value: V
    maturity: Maturity
    evidence: ScenarioEvidence | None

    @property
    def samples(self) -> int:
        """How many samples yield the value (0 when none does)."""
        return 0 if self.evidence is None else self.evidence.samples

    def report_dict(self) -> dict[str, Any]:
        """The value's entries, with ``maturity`` and ``evidence`` beside them."""
        return {**self.value.report_dict(), "maturity": self.maturity.report_dict(),
                "evidence": evidence_dict(self.evidence)}


Rate = Graded[RateSummary]
"""A rate summary (macro, micro, intervals, repeats) with its maturity."""


@dataclass(frozen=True)
class SpeakerRate:
    """A speaker-attributed rate (cp, ORC, tcp, WDER) of one scenario: the runs scored,
    the runs ``unsupported`` (a system property, never a rate of 0 or 1) and the rate."""

    scored_runs: int
    unsupported_runs: int
    rate: Rate | None

    def report_dict(self) -> dict[str, Any]:
        return {"scored_runs": self.scored_runs, "unsupported_runs": self.unsupported_runs,
                "rate": None if self.rate is None else self.rate.report_dict()}


@dataclass(frozen=True)
class CollaredSpeakerRate(SpeakerRate):
    """tcpWER's entry: a speaker rate and the collar its word pairs were allowed."""

    collar_s: float | None

    def report_dict(self) -> dict[str, Any]:
        return {**super().report_dict(), "collar_s": self.collar_s}


@dataclass(frozen=True)
class DiarizationEntry:
    """DER of one scenario under the main protocol: the rate with overlap included, its
    overlap-excluded and overlap-only variants, and the pooled score of every scored run."""

    scored_runs: int
    unsupported_runs: int
    der: Rate | None
    der_overlap_excluded: Rate | None
    der_overlap_only: Rate | None
    pooled: DiarizationScore | None

    def report_dict(self) -> dict[str, Any]:
        return {"scored_runs": self.scored_runs, "unsupported_runs": self.unsupported_runs,
                **{name: None if rate is None else rate.report_dict() for name, rate in (
                    ("der", self.der), ("der_overlap_excluded", self.der_overlap_excluded),
                    ("der_overlap_only", self.der_overlap_only))},
                "pooled": (None if self.pooled is None
                           else score_dict(self.pooled, exclude_overlap=False))}


@dataclass(frozen=True)
class TimestampsEntry:
    """Timestamps of one scenario, pooled over its runs: runs by granularity, turn and token
    timing, boundary matches by tolerance (seconds as text, token-timed runs only) and
    speech coverage."""

    runs_by_granularity: Mapping[str, int]
    runs_without_timestamp_scoring: int
    turns: TurnTiming | None
    tokens: TokenTiming | None
    turn_boundaries: Mapping[str, MatchCounts] | None
    speech: SpeechCoverage | None
    out_of_official_input_range: int = 0
    """Runs whose sample is longer than the timestamp provider's official input range
    (:mod:`.declarations`): among those without timestamp scoring, reported when any."""

    def report_dict(self) -> dict[str, Any]:
        return {
            **({"out_of_official_input_range": self.out_of_official_input_range}
               if self.out_of_official_input_range else {}),
            "runs_by_granularity": dict(self.runs_by_granularity),
            "runs_without_timestamp_scoring": self.runs_without_timestamp_scoring,
            "turns": None if self.turns is None else self.turns.report_dict(),
            "tokens": None if self.tokens is None else self.tokens.report_dict(),
            "turn_boundaries": (None if self.turn_boundaries is None else
                                {k: v.report_dict() for k, v in self.turn_boundaries.items()}),
            "speech": None if self.speech is None else self.speech.report_dict(),
        }
