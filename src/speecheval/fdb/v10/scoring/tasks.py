"""One object per FDB v1.0 task: read its annotation, score a sample, summarise a subset.

Why: the scorer handles every task the same way (``scoring.score_tree``: tree ->
samples -> per-task rows -> subsets -> outputs) and asks the sample's :class:`Task` for
what differs. A new task is one class here and an entry in :data:`TASKS`; a new metric
of a task is a line in its ``subset`` method.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ....core.errors import InputError
from ....core.results import Result
from ....core.timebase import from_us
from ....core.timeline import Spans
from ...common.aggregate import (
    LatencyQuantiles,
    Metric,
    PooledRatio,
    ShareMetric,
    SubsetCounts,
    rate_within,
)
from ...common.annotations import interruption_from, pauses_from, turn_end_from
from ...common.tree import (
    BACKCHANNEL,
    PAUSE_HANDLING,
    SMOOTH_TURN_TAKING,
    USER_INTERRUPTION,
    ManifestSample,
)
from . import interruption as intr
from . import turn_taking as tt
from .pause import PauseSample, score_pause_sample, score_pause_samples
from .samples import LoadedSample

RESPONSE_WINDOWS_S = (1, 2, 5)

SampleScore = PauseSample | tt.TurnTakingSample | intr.InterruptionSample


@dataclass(frozen=True)
class SubsetResult(Result, kind="fdb10.subset_result"):
    """One subset of ``unified.json``: counts, coverage and the task's metrics.

    ``min_observable_s`` (the shortest time a sample's output is observed after its
    reference time) is reported by the tasks that have one (``reports_horizon``).
    """

    task: str
    counts: SubsetCounts
    coverage: float | None
    metrics: dict[str, Metric] | None
    reports_horizon: bool = False
    min_observable_s: float | None = None
    note: str | None = None

    def report_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "task": self.task, "counts": self.counts.report_dict(), "coverage": self.coverage,
            "metrics": (None if self.metrics is None
                        else {name: metric.report_dict() for name, metric in self.metrics.items()}),
        }
        if self.reports_horizon:
            record["min_observable_s"] = self.min_observable_s
        if self.note is not None:
            record["note"] = self.note
        return record


def _subset(task: str, selected: Sequence[ManifestSample], declared: int,
            metrics: dict[str, Metric] | None, **extra: Any) -> SubsetResult:
    coverage = (sum(1 for e in selected if e.eligible) / len(selected) if selected else None)
    return SubsetResult(task, SubsetCounts.of(selected, declared), coverage, metrics, **extra)


def _one_by_one(task: Task, samples: Sequence[LoadedSample], segments: Mapping[str, Spans]
                ) -> list[SampleScore]:
    """``task.score`` of each sample: what a task without a batched scorer does."""
    return [task.score(sample, segments.get(sample.entry.sample_id, Spans.empty()))
            for sample in samples]


def _min_observable(observable_us: Sequence[int]) -> float | None:
    """The shortest time any sample's output was observed after its reference time."""
    return from_us(min(observable_us)) if observable_us else None


class Task(Protocol):
    """What the scorer needs from a task."""

    name: str
    scored: bool
    """Whether the task has unified metrics (and per-sample rows)."""
    needs_speech: bool
    """Whether scoring needs the speech segments of ``output.wav`` (the VAD)."""

    def load(self, sample: LoadedSample) -> LoadedSample:
        """The sample with the task's annotation read and checked."""
        ...

    def score(self, sample: LoadedSample, segments: Spans) -> SampleScore:
        """Per-sample quantities of one eligible sample."""
        ...

    def score_many(self, samples: Sequence[LoadedSample], segments: Mapping[str, Spans]
                   ) -> Sequence[SampleScore]:
        """:meth:`score` of each sample, in order (``segments`` by sample id, none: no
        speech); a task may compute them all at once, with the same result."""
        ...

    def subset(self, selected: Sequence[ManifestSample], declared: int,
               scored: Sequence[Any]) -> SubsetResult:
        """The subset record from its selected samples and the scores of the eligible ones."""
        ...


class PauseHandling:
    name, scored, needs_speech = PAUSE_HANDLING, True, False

    def load(self, sample: LoadedSample) -> LoadedSample:
        return dataclasses.replace(sample, pauses=pauses_from(
            sample.annotation_data, sample.annotation, sample.entry.sample_id, sample.duration_us))

    def score(self, sample: LoadedSample, segments: Spans) -> PauseSample:
        return score_pause_sample(sample.words, sample.pauses)

    def score_many(self, samples: Sequence[LoadedSample], segments: Mapping[str, Spans]
                   ) -> Sequence[PauseSample]:
        return score_pause_samples([(sample.words, sample.pauses) for sample in samples])

    def subset(self, selected: Sequence[ManifestSample], declared: int,
               scored: Sequence[PauseSample]) -> SubsetResult:
        n, total = len(scored), len(selected)

        def flag_share(flag: str, better: str) -> ShareMetric:
            count = sum(1 for s in scored if getattr(s, flag))
            return ShareMetric.of(count, n, selected=total, unknown=total - n, better=better)

        metrics: dict[str, Metric] = {
            "pause_intrusion_rate": flag_share("pause_intrusion", "lower"),
            "pause_intrusion_per_pause": PooledRatio.of(
                [s.intruded_pauses for s in scored], [s.pauses for s in scored],
                better="lower"),
            "intrusion_s_per_pause_s": PooledRatio.of(
                [from_us(s.intrusion_us) for s in scored],
                [from_us(s.pause_us) for s in scored], better="lower"),
            "inside_pause_onset_rate": flag_share("inside_pause_onset", "context"),
            "pre_pause_speech_rate": flag_share("pre_pause_speech", "context"),
            "carry_in_rate": flag_share("carry_in", "context"),
            "any_speech_rate": flag_share("any_speech", "context"),
        }
        return _subset(self.name, selected, declared, metrics)


def _response_rates(latencies: Sequence[int | None], n: int, total: int, unknown: int
                    ) -> dict[str, Metric]:
    return {f"response_rate_{k}s": ShareMetric.of(rate_within(latencies, k), n, selected=total,
                                                  unknown=unknown, better="higher")
            for k in RESPONSE_WINDOWS_S}


class TurnTaking:
    name, scored, needs_speech = SMOOTH_TURN_TAKING, True, False

    def load(self, sample: LoadedSample) -> LoadedSample:
        return dataclasses.replace(sample, turn_end_us=turn_end_from(
            sample.annotation_data, sample.annotation, sample.entry.sample_id, sample.duration_us))

    def score_many(self, samples: Sequence[LoadedSample], segments: Mapping[str, Spans]
                   ) -> Sequence[SampleScore]:
        return _one_by_one(self, samples, segments)

    def score(self, sample: LoadedSample, segments: Spans) -> tt.TurnTakingSample:
        assert sample.turn_end_us is not None
        return tt.score_turn_taking_sample(sample.words, sample.turn_end_us,
                                           sample.duration_us)

    def subset(self, selected: Sequence[ManifestSample], declared: int,
               scored: Sequence[tt.TurnTakingSample]) -> SubsetResult:
        n, total = len(scored), len(selected)
        unknown = total - n
        latencies = [s.latency_us for s in scored]

        def outcome_share(outcome: str) -> ShareMetric:
            return ShareMetric.of(sum(1 for s in scored if s.outcome == outcome), n,
                                  selected=total, unknown=unknown, better="lower")

        metrics: dict[str, Metric] = {
            "early_start_rate": outcome_share(tt.EARLY_START),
            "no_response_rate": outcome_share(tt.NO_RESPONSE),
            "response_latency_s": LatencyQuantiles.of(latencies),
            **_response_rates(latencies, n, total, unknown),
        }
        return _subset(self.name, selected, declared, metrics, reports_horizon=True,
                       min_observable_s=_min_observable([s.observable_us for s in scored]))


class Interruption:
    name, scored, needs_speech = USER_INTERRUPTION, True, True

    def load(self, sample: LoadedSample) -> LoadedSample:
        """The interruption [S, R]; the transcript must hold no word before R
        (``reference-asr`` cuts the audio at R)."""
        span = interruption_from(sample.annotation_data, sample.annotation,
                                 sample.entry.sample_id, sample.duration_us)
        early = [w for w in sample.words if w.start_us < span.end_us]
        if early:
            raise InputError(f"transcript word {early[0].text!r} starts at "
                             f"{from_us(early[0].start_us):.6f} s, before R = "
                             f"{from_us(span.end_us):.6f} s (reference-asr cuts the audio at "
                             "R)", path=sample.transcript, sample_id=sample.entry.sample_id)
        return dataclasses.replace(sample, interruption=span)

    def score_many(self, samples: Sequence[LoadedSample], segments: Mapping[str, Spans]
                   ) -> Sequence[SampleScore]:
        return _one_by_one(self, samples, segments)

    def score(self, sample: LoadedSample, segments: Spans) -> intr.InterruptionSample:
        assert sample.interruption is not None
        return intr.score_interruption_sample(segments, sample.words, sample.interruption,
                                              sample.duration_us)

    def subset(self, selected: Sequence[ManifestSample], declared: int,
               scored: Sequence[intr.InterruptionSample]) -> SubsetResult:
        total = len(selected)
        exercised = [s for s in scored if s.exercised]
        n_ex = len(exercised)
        unknown = total - n_ex  # ineligible plus not exercised
        latencies = [s.latency_us for s in exercised]

        def outcome_share(outcome: str) -> ShareMetric:
            return ShareMetric.of(sum(1 for s in exercised if s.outcome == outcome), n_ex,
                                  selected=total, unknown=unknown, better="lower")

        metrics: dict[str, Metric] = {
            "exercised_rate": ShareMetric.of(n_ex, len(scored), selected=total,
                                             unknown=total - len(scored), better="context"),
            "speaking_at_end_rate": outcome_share(intr.SPEAKING_AT_END),
            "no_response_rate": outcome_share(intr.NO_RESPONSE),
            "response_latency_s": LatencyQuantiles.of(latencies),
            "stop_latency_s": LatencyQuantiles.of([s.stop_us for s in exercised]),
            "speech_s_per_interruption_s": PooledRatio.of(
                [from_us(s.speech_in_interruption_us) for s in exercised],
                [from_us(s.end_us - s.onset_us) for s in exercised], better="lower"),
            "restart_rate": ShareMetric.of(sum(1 for s in exercised if s.restarts > 0), n_ex,
                                           selected=total, unknown=unknown, better="lower"),
            **_response_rates(latencies, n_ex, total, unknown),
        }
        return _subset(self.name, selected, declared, metrics, reports_horizon=True,
                       min_observable_s=_min_observable([s.observable_us for s in scored]))


class Backchannel:
    """No unified metric: the official evaluator's frequency and JSD are the reference."""

    name, scored, needs_speech = BACKCHANNEL, False, False

    def load(self, sample: LoadedSample) -> LoadedSample:
        raise NotImplementedError("backchannel samples are not scored")

    def score_many(self, samples: Sequence[LoadedSample], segments: Mapping[str, Spans]
                   ) -> Sequence[SampleScore]:
        return _one_by_one(self, samples, segments)

    def score(self, sample: LoadedSample, segments: Spans) -> SampleScore:
        raise NotImplementedError("backchannel samples are not scored")

    def subset(self, selected: Sequence[ManifestSample], declared: int,
               scored: Sequence[Any]) -> SubsetResult:
        return _subset(self.name, selected, declared, None,
                       note="no unified metric; the official backchannel frequency and JSD "
                            "are the reference")


TASKS: dict[str, Task] = {task.name: task for task in (
    PauseHandling(), TurnTaking(), Interruption(), Backchannel())}
