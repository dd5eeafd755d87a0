"""``fdb15 score``: the timing of every trial of a v1.5 output tree, per scenario.

A tree is the official dataset layout with each system output beside its input
(``docs/fdb15.md``): ``<tree>/<scenario>/<id>/`` holds ``metadata.json``, ``input.wav``
and ``output.wav`` (the system's audio on the input's timeline). Every sample folder is
scored; a folder that lacks one of the files, or holds one that cannot be read, is bad
input (exit 2, naming the sample and the file), and nothing is written.

Per trial: Silero segments of output.wav give the event-anchored timing
(:func:`..timing.trial.trial_timing`) against the window of metadata.json, and Silero segments
of input.wav and output.wav, padded by 30 ms as get_timing.py's are, give the official
intervals (:mod:`..timing.official`).
The trials are timed through a :class:`~speecheval.core.executor.Executor` (``--jobs``,
``--executor``): each process loads Silero once (:func:`process_vad`) and the results come
back in trial order, so the files do not depend on where the trials ran.
Per scenario: the share of each status with its Wilson interval, and the median stop and
response latency with a whole-sample bootstrap interval (v1.0's
:class:`...common.aggregate.LatencyQuantiles`: 2000 resamples, seed 0, the rank rule of
:mod:`speecheval.core.stats`, censored and missing values at ``+inf``), beside the mean
the paper's Table 3 reports (:mod:`.means`).
Beside the headline each trial and scenario carries: the unbridged stop and response (a
diagnostic; the scenario counts the trials the 0.5 s bridging changed), the response
latency anchored on the user's speech end as Silero hears it in input.wav
(:mod:`..timing.user_end`), the official per-file response figure (the mean and median of
the file's official response gaps) and, where the tree holds the clean session
(clean_output.wav), the Table 1 pilot (:mod:`..timing.clean_pilot`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ....core.audio import Audio, read_mono
from ....core.errors import InputError
from ....core.executor import Executor
from ....core.progress import Advance, progress
from ....core.results import Result
from ....core.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from ....core.timebase import to_us
from ....core.timeline import Span
from ....vad.base import Vad
from ...common.aggregate import LatencyQuantiles, ShareMetric
from ..dataset import layout
from ..dataset.layout import DECLARED_SIZES, INPUT_WAV, METADATA_JSON, SampleRef, sample_folders
from ..judge.behavior import CLEAN_OUTPUT_WAV
from ..timing.clean_pilot import CleanPilot, clean_pilot
from ..timing.official import (
    MODEL_MERGE_GAP_S,
    OFFICIAL_SPEECH_PAD_MS,
    USER_MERGE_GAP_S,
    OfficialTiming,
    official_timing,
)
from ..timing.trial import (
    BRIDGE_GAP_US,
    RESPONSE_STATUSES,
    STOP_STATUSES,
    EventTiming,
    TrialTiming,
    event_timing,
)
from ..timing.user_end import overlap_user_end
from .means import MeanSummary
from .pilot import table1_pilot

if TYPE_CHECKING:
    from ..dataset.metadata_schema import SampleMetadata

OUTPUT_WAV = "output.wav"
TREE_FILES = (METADATA_JSON, INPUT_WAV, OUTPUT_WAV)
NOT_RECORDED = "not_recorded"
"""The clean pilot's status of a trial whose folder has no clean_output.wav."""


@dataclass(frozen=True)
class TrialInput(SampleRef):
    """One sample folder of the tree, located and named."""

    folder: Path


def _seconds(value: int | None) -> float | None:
    return None if value is None else value / 1e6


@dataclass(frozen=True)
class ScoredTrial:
    """The timing of one trial and the official intervals of the same sample.

    ``timing`` is the headline (pauses of at most 0.5 s bridged), ``unbridged`` the same
    on the raw segments; ``user_end_us`` is where Silero finds the overlap speech ending
    in input.wav and ``from_user_end`` the timing whose window ends there (its response
    is the VAD-anchored response latency); ``clean`` the Table 1 pilot (None: no clean
    session in the folder)."""

    sample_id: str
    scenario: str
    window: Span
    output_end_us: int
    timing: TrialTiming
    official: OfficialTiming
    unbridged: TrialTiming
    user_end_us: int | None
    from_user_end: TrialTiming | None
    clean: CleanPilot | None

    @property
    def bridging_changed(self) -> bool:
        """Whether the 0.5 s bridging changed the stop or the response."""
        event = EventTiming(self.timing, self.unbridged)
        return event.stop_changed or event.response_changed

    def report_dict(self) -> dict[str, Any]:
        """The trial's line of ``timing-samples.jsonl`` (seconds)."""
        gaps = self.official.response_gaps_s()
        row: dict[str, Any] = {
            "sample_id": self.sample_id, "scenario": self.scenario,
            "window_s": [self.window.start_s, self.window.end_s],
            "output_duration_s": self.output_end_us / 1e6,
            "stop_status": self.timing.stop_status,
            "stop_latency_s": self.timing.stop_latency_s,
            "response_status": self.timing.response_status,
            "response_latency_s": self.timing.response_latency_s,
            "official": self.official.report_dict(),
            "bridging_changed": self.bridging_changed,
            "unbridged_stop_status": self.unbridged.stop_status,
            "unbridged_stop_latency_s": self.unbridged.stop_latency_s,
            "unbridged_response_status": self.unbridged.response_status,
            "unbridged_response_latency_s": self.unbridged.response_latency_s,
            "user_end_s": _seconds(self.user_end_us),
            "response_status_from_user_end": (None if self.from_user_end is None
                                              else self.from_user_end.response_status),
            "response_latency_from_user_end_s": (None if self.from_user_end is None
                                                 else self.from_user_end.response_latency_s),
            "official_response_gaps_s": gaps,
            "official_response_gap_mean_s": MeanSummary.of(gaps).mean,
            "official_response_gap_median_s": _file_median(gaps),
        }
        if self.clean is None:
            row.update({"clean_context_end_s": None, "clean_response_status": NOT_RECORDED,
                        "clean_response_latency_s": None, "clean_output_length_s": None,
                        "clean_output_length_censored": False})
        else:
            row.update(self.clean.report_dict())
        return row


def _file_median(gaps: Sequence[float]) -> float | None:
    """The median of one file's gaps (the middle one, or the mean of the middle two)."""
    if not gaps:
        return None
    ordered = sorted(gaps)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return round((ordered[middle - 1] + ordered[middle]) / 2, 4)


@dataclass(frozen=True)
class ScenarioTiming(Result, kind="fdb15.scenario_timing"):
    """The timing summary of one scenario."""

    declared: int
    trials: int
    stop_statuses: dict[str, ShareMetric]
    response_statuses: dict[str, ShareMetric]
    stop_latency: LatencyQuantiles
    response_latency: LatencyQuantiles

    @classmethod
    def of(cls, declared: int, timings: Sequence[TrialTiming]) -> ScenarioTiming:
        n = len(timings)

        def shares(statuses: Sequence[str], pick: Callable[[TrialTiming], str]
                   ) -> dict[str, ShareMetric]:
            return {status: ShareMetric.of(sum(pick(t) == status for t in timings), n,
                                           selected=n, unknown=0, better="none")
                    for status in statuses}

        stops = [t.stop_latency_us for t in timings if t.stop_value() is not None]
        responses = [t.response_latency_us for t in timings if t.response_value() is not None]
        return cls(declared=declared, trials=n,
                   stop_statuses=shares(STOP_STATUSES, lambda t: t.stop_status),
                   response_statuses=shares(RESPONSE_STATUSES, lambda t: t.response_status),
                   stop_latency=LatencyQuantiles.of(stops),
                   response_latency=LatencyQuantiles.of(responses))

    def report_dict(self) -> dict[str, Any]:
        return {"declared": self.declared, "trials": self.trials,
                "stop_statuses": {k: v.report_dict() for k, v in self.stop_statuses.items()},
                "response_statuses": {k: v.report_dict()
                                      for k, v in self.response_statuses.items()},
                "stop_latency": self.stop_latency.report_dict(),
                "response_latency": self.response_latency.report_dict()}


def _finite(values: Sequence[float | None]) -> list[float]:
    return [v for v in values if v is not None and v != float("inf")]


@dataclass(frozen=True)
class ScenarioSummary:
    """One scenario's ``timing.json`` entry: the headline :class:`ScenarioTiming` and,
    beside it, the means, the bridging count, the VAD-anchored response latency and the
    official per-file response figure."""

    timing: ScenarioTiming
    extras: dict[str, Any]

    @classmethod
    def of(cls, declared: int, scored: Sequence[ScoredTrial]) -> ScenarioSummary:
        timings = [t.timing for t in scored]
        anchored = [t.from_user_end for t in scored if t.from_user_end is not None]
        official = [t.official.response_gaps_s() for t in scored]
        file_means = [MeanSummary.of(gaps).mean for gaps in official if gaps]
        extras = {
            "stop_latency_mean": {
                **MeanSummary.of(_finite([t.stop_value() for t in timings])).report_dict(),
                "left_out": {"right_censored": sum(t.stop_status == "right_censored"
                                                   for t in timings)}},
            "response_latency_mean": {
                **MeanSummary.of(_finite([t.response_value() for t in timings])).report_dict(),
                "left_out": {"no_response": sum(t.response_status == "no_response"
                                                for t in timings)}},
            "bridging": {
                "bridge_gap_s": BRIDGE_GAP_US / 1e6,
                "trials_changed": sum(t.bridging_changed for t in scored),
                "stop_changed": sum(EventTiming(t.timing, t.unbridged).stop_changed
                                    for t in scored),
                "response_changed": sum(EventTiming(t.timing, t.unbridged).response_changed
                                        for t in scored),
                "unbridged_stop_latency": LatencyQuantiles.of(
                    [t.unbridged.stop_latency_us for t in scored
                     if t.unbridged.stop_value() is not None]).report_dict()},
            "response_from_user_end": {
                "user_end_found": len(anchored),
                "user_end_not_found": len(scored) - len(anchored),
                "statuses": {status: sum(t.response_status == status for t in anchored)
                             for status in RESPONSE_STATUSES},
                "latency": LatencyQuantiles.of(
                    [t.response_latency_us for t in anchored
                     if t.response_value() is not None]).report_dict(),
                "latency_mean": MeanSummary.of(
                    _finite([t.response_value() for t in anchored])).report_dict()},
            "official_response": {
                "files_with_a_gap": len(file_means),
                "files_without_a_gap": len(official) - len(file_means),
                "file_mean": MeanSummary.of([m for m in file_means if m is not None]
                                            ).report_dict()},
        }
        return cls(ScenarioTiming.of(declared, timings), extras)

    def report_dict(self) -> dict[str, Any]:
        return {**self.timing.report_dict(), **self.extras}


def find_trials(tree: Path) -> list[TrialInput]:
    """Every sample folder of the tree, in scenario order then by id."""
    trials = [TrialInput(scenario, name, tree / scenario / name)
              for scenario, names in sample_folders(tree, "tree").items() for name in names]
    if not trials:
        raise InputError("the tree holds no sample folder", path=tree)
    return trials


def sample_metadata(trial: TrialInput) -> SampleMetadata:
    """The trial's metadata.json, checked (bad input names the sample and the file)."""
    from ....core.schema import load
    from ..dataset.metadata_schema import SampleMetadata

    return load(SampleMetadata, trial.folder / METADATA_JSON, what="metadata.json",
                sample_id=trial.sample_id)


def trial_files(trial: TrialInput) -> tuple[str, ...]:
    """The files of the trial's folder that scoring reads: the three of every trial and,
    where the clean session was recorded, clean_input.wav and clean_output.wav."""
    if (trial.folder / CLEAN_OUTPUT_WAV).is_file():
        return (*TREE_FILES, layout.CLEAN_INPUT_WAV, CLEAN_OUTPUT_WAV)
    return TREE_FILES


def _window(trial: TrialInput) -> Span:
    return Span.from_seconds(*sample_metadata(trial).timestamps)


def _audio(trial: TrialInput, name: str) -> Audio:
    return read_mono(trial.folder / name, sample_id=trial.sample_id)


def _clean_pilot(trial: TrialInput, vad: Vad) -> CleanPilot | None:
    """The Table 1 pilot of the trial's clean session, None when it was not recorded."""
    if not (trial.folder / CLEAN_OUTPUT_WAV).is_file():
        return None
    if not (trial.folder / layout.CLEAN_INPUT_WAV).is_file():
        raise InputError(f"{layout.CLEAN_INPUT_WAV} is missing beside {CLEAN_OUTPUT_WAV}",
                         path=trial.folder / layout.CLEAN_INPUT_WAV, sample_id=trial.sample_id)
    output = _audio(trial, CLEAN_OUTPUT_WAV)
    return clean_pilot(vad.segments(_audio(trial, layout.CLEAN_INPUT_WAV)), vad.segments(output),
                       to_us(output.n_samples / output.rate))


def score_trial(trial: TrialInput, vad: Vad, official_vad: Vad) -> ScoredTrial:
    """Read the files of one trial and time it: ``vad`` for our timing, ``official_vad``
    (get_timing.py's Silero settings) for the official column."""
    for name in TREE_FILES:
        if not (trial.folder / name).is_file():
            raise InputError(f"{name} is missing", path=trial.folder / name,
                             sample_id=trial.sample_id)
    window = _window(trial)
    output = _audio(trial, OUTPUT_WAV)
    heard = _audio(trial, INPUT_WAV)
    output_end = to_us(output.n_samples / output.rate)
    official = official_timing(official_vad.segments(heard), official_vad.segments(output))
    segments = vad.segments(output)
    event = event_timing(segments, window, output_end)
    user_end = overlap_user_end(vad.segments(heard), window)
    from_user_end = (None if user_end is None else
                     event_timing(segments, Span(window.start_us, user_end),
                                  output_end).bridged)
    return ScoredTrial(sample_id=trial.sample_id, scenario=trial.scenario, window=window,
                       output_end_us=output_end, timing=event.bridged, official=official,
                       unbridged=event.unbridged, user_end_us=user_end,
                       from_user_end=from_user_end, clean=_clean_pilot(trial, vad))


_process_vads: dict[str, Vad] = {}
"""This process's two Silero detectors, made by the first :func:`process_vad` call."""


def process_vad(kind: str = "timing") -> Vad:
    """This process's Silero (made once per process: here, or in each worker): ``timing``
    with speecheval's settings, ``official`` with get_timing.py's (30 ms padding)."""
    if kind not in _process_vads:
        from ....vad.silero import SileroSettings, SileroVad

        settings = (SileroSettings(speech_pad_ms=OFFICIAL_SPEECH_PAD_MS)
                    if kind == "official" else SileroSettings())
        _process_vads[kind] = SileroVad(settings)
    return _process_vads[kind]


def score_trial_here(trial: TrialInput) -> ScoredTrial:
    """:func:`score_trial` with this process's Silero (the executor's work item)."""
    return score_trial(trial, process_vad(), process_vad("official"))


def score_trials(trials: Sequence[TrialInput], executor: Executor,
                 advance: Advance) -> list[ScoredTrial]:
    """Time every trial on ``executor``, in trial order; bad input stops the run."""
    results = executor.map(score_trial_here, trials, advance=advance, stop_on=(InputError,))
    return [result.get() for result in results]


def summarize(scored: Sequence[ScoredTrial]) -> dict[str, ScenarioSummary]:
    """The summary of each scenario that has trials, in the paper's order."""
    return {scenario: ScenarioSummary.of(declared,
                                         [t for t in scored if t.scenario == scenario])
            for scenario, declared in DECLARED_SIZES.items()
            if any(t.scenario == scenario for t in scored)}


@dataclass(frozen=True)
class TimingScores:
    """What ``fdb15 score`` computes without a judge: the ``trials`` found, each one's
    timing (``scored``, the lines of ``timing-samples.jsonl``), the ``summary`` of each
    scenario (``timing.json``'s ``scenarios``), the ``settings`` its provenance
    record names (the two Silero detectors, the bootstrap, the official merge gaps, the
    bridge gap) and the Table 1 ``pilot`` (``timing.json``'s ``table1_pilot``)."""

    trials: tuple[TrialInput, ...]
    scored: tuple[ScoredTrial, ...]
    summary: dict[str, ScenarioSummary]
    settings: dict[str, Any]
    pilot: dict[str, Any]


def score_timing(trials: Sequence[TrialInput], executor: Executor) -> TimingScores:
    """Time ``trials`` on ``executor`` (progress on a terminal) and summarise them: the
    one computation behind ``speecheval.fdb15.score_tree`` and ``fdb15 score``, which
    finds the trials and starts its judge first."""
    with progress(len(trials), "fdb15 score") as advance:
        scored = score_trials(trials, executor, advance)
    settings: dict[str, Any] = {
        "vad": process_vad().identity(),
        "official_vad": process_vad("official").identity(),
        "bootstrap": {"resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED},
        "official_merge_gaps_s": {"user": USER_MERGE_GAP_S, "model": MODEL_MERGE_GAP_S},
        "bridge_gap_s": BRIDGE_GAP_US / 1e6}
    return TimingScores(tuple(trials), tuple(scored), summarize(scored), settings,
                        table1_pilot([(t.scenario, t.clean) for t in scored]))
