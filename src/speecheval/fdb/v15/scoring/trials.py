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
:mod:`speecheval.core.stats`, censored and missing values at ``+inf``).
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
from ..dataset.layout import DECLARED_SIZES, INPUT_WAV, METADATA_JSON, SampleRef, sample_folders
from ..timing.official import (
    MODEL_MERGE_GAP_S,
    OFFICIAL_SPEECH_PAD_MS,
    USER_MERGE_GAP_S,
    OfficialTiming,
    official_timing,
)
from ..timing.trial import RESPONSE_STATUSES, STOP_STATUSES, TrialTiming, trial_timing

if TYPE_CHECKING:
    from ..dataset.metadata_schema import SampleMetadata

OUTPUT_WAV = "output.wav"
TREE_FILES = (METADATA_JSON, INPUT_WAV, OUTPUT_WAV)


@dataclass(frozen=True)
class TrialInput(SampleRef):
    """One sample folder of the tree, located and named."""

    folder: Path


@dataclass(frozen=True)
class ScoredTrial:
    """The timing of one trial and the official intervals of the same sample."""

    sample_id: str
    scenario: str
    window: Span
    output_end_us: int
    timing: TrialTiming
    official: OfficialTiming

    def report_dict(self) -> dict[str, Any]:
        """The trial's line of ``timing-samples.jsonl`` (seconds)."""
        return {"sample_id": self.sample_id, "scenario": self.scenario,
                "window_s": [self.window.start_s, self.window.end_s],
                "output_duration_s": self.output_end_us / 1e6,
                "stop_status": self.timing.stop_status,
                "stop_latency_s": self.timing.stop_latency_s,
                "response_status": self.timing.response_status,
                "response_latency_s": self.timing.response_latency_s,
                "official": self.official.report_dict()}


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


def _window(trial: TrialInput) -> Span:
    return Span.from_seconds(*sample_metadata(trial).timestamps)


def _audio(trial: TrialInput, name: str) -> Audio:
    return read_mono(trial.folder / name, sample_id=trial.sample_id)


def score_trial(trial: TrialInput, vad: Vad, official_vad: Vad) -> ScoredTrial:
    """Read the three files of one trial and time it: ``vad`` for our timing,
    ``official_vad`` (get_timing.py's Silero settings) for the official column."""
    for name in TREE_FILES:
        if not (trial.folder / name).is_file():
            raise InputError(f"{name} is missing", path=trial.folder / name,
                             sample_id=trial.sample_id)
    window = _window(trial)
    output = _audio(trial, OUTPUT_WAV)
    output_end = to_us(output.n_samples / output.rate)
    official = official_timing(official_vad.segments(_audio(trial, INPUT_WAV)),
                               official_vad.segments(output))
    return ScoredTrial(sample_id=trial.sample_id, scenario=trial.scenario, window=window,
                       output_end_us=output_end,
                       timing=trial_timing(vad.segments(output), window, output_end),
                       official=official)


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


def summarize(scored: Sequence[ScoredTrial]) -> dict[str, ScenarioTiming]:
    """The summary of each scenario that has trials, in the paper's order."""
    return {scenario: ScenarioTiming.of(declared,
                                        [t.timing for t in scored if t.scenario == scenario])
            for scenario, declared in DECLARED_SIZES.items()
            if any(t.scenario == scenario for t in scored)}


@dataclass(frozen=True)
class TimingScores:
    """What ``fdb15 score`` computes without a judge: the ``trials`` found, each one's
    timing (``scored``, the lines of ``timing-samples.jsonl``), the ``summary`` of each
    scenario (``timing.json``'s ``scenarios``) and the ``settings`` its provenance
    record names (the two Silero detectors, the bootstrap, the official merge gaps)."""

    trials: tuple[TrialInput, ...]
    scored: tuple[ScoredTrial, ...]
    summary: dict[str, ScenarioTiming]
    settings: dict[str, Any]


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
        "official_merge_gaps_s": {"user": USER_MERGE_GAP_S, "model": MODEL_MERGE_GAP_S}}
    return TimingScores(tuple(trials), tuple(scored), summarize(scored), settings)
