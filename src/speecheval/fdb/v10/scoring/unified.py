"""``unified-score``: a reference tree in, ``unified.json`` and its sample rows out.

The data flows once: tree -> samples -> per-task rows -> subsets -> outputs. Everything
is read and checked before anything is scored (a bad tree stops with its first
problem, and nothing is written), then the tasks that need speech segments get them
from the VAD (Silero, with progress on a terminal, or from the VAD cache when one is
given: see ``speech.py``), then each sample's :class:`~speecheval.fdb.v10.scoring.tasks.Task`
scores it (a task's samples together) and summarises its subset. The overlaps: the
VAD cache is looked up as soon as the manifest is read; the misses go to the worker
processes at once and the hits' files are hashed in background threads, both while the
samples load (a bad sample still stops the run, and the background work is abandoned);
and while the VAD runs, the tasks that need no speech are scored and summarised and the
provenance record is collected.
What differs between tasks lives in ``tasks.py``; nothing here names a task.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ....core.paths import folders_checked_once
from ....core.progress import progress
from ....core.provenance import Provenance, collect_provenance
from ....core.results import Result
from ....core.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CONFIDENCE
from ....core.timeline import Spans
from ....vad.silero_spec import PROVENANCE_PACKAGES
from ...common.hash_memo import HashMemo
from ...common.speech import (
    CacheUse,
    SpeechJob,
    SpeechRun,
    vad_identity,
    vad_model_files,
    vad_model_hashes,
)
from ...common.tree import (
    ASR_FILE,
    MANIFEST_FILE,
    OUTPUT_WAV,
    SUBSET_TASKS,
    AsrIndex,
    Manifest,
    ManifestSample,
)
from ...common.tree_read import load_asr, load_manifest
from .samples import LoadedSample, read_sample
from .tasks import TASKS, SampleScore, SubsetResult

if TYPE_CHECKING:
    from ....core.executor import Executor

DEFINITIONS_VERSION = "fdb-v1.0-unified-4"
UNIFIED_KIND = "fdb-v1.0-unified"
STATISTICS: dict[str, Any] = {
    "confidence": CONFIDENCE,
    "share_interval": "wilson",
    "bootstrap": {"method": "percentile", "unit": "sample", "resamples": BOOTSTRAP_RESAMPLES,
                  "seed": BOOTSTRAP_SEED,
                  "generator": "numpy.random.default_rng (PCG64), fresh per metric"},
    "quantile_rule": "ceil(qN)-th smallest, no interpolation; "
                     "a quantile on a sample without a value is not reached",
}
"""How every interval and quantile in ``unified.json`` is computed."""


@dataclass(frozen=True)
class SampleRow(Result, kind="fdb10.sample_row"):
    """One line of ``unified-samples.jsonl``: a selected sample and, if eligible, its score."""

    sample_id: str
    subset: str
    task: str
    eligible: bool
    input_duration_s: float
    reasons: tuple[str, ...]
    score: SampleScore | None

    @classmethod
    def of(cls, entry: ManifestSample, score: SampleScore | None) -> SampleRow:
        return cls(entry.sample_id, entry.subset, entry.task, entry.eligible,
                   entry.input_duration_s, entry.reasons, score)

    def report_dict(self) -> dict[str, Any]:
        row: dict[str, Any] = {"sample_id": self.sample_id, "subset": self.subset,
                               "task": self.task, "eligible": self.eligible,
                               "input_duration_s": self.input_duration_s}
        if not self.eligible:
            row["reasons"] = list(self.reasons)
        if self.score is not None:
            row.update(self.score.report_dict())
        return row


@dataclass(frozen=True)
class UnifiedSummary(Result, kind="fdb10.unified_summary"):
    """``unified.json``: the definitions, one provenance record and every subset."""

    definitions_version: str
    provenance: Provenance
    subsets: dict[str, SubsetResult]

    @property
    def vad_version(self) -> str:
        vad = self.provenance.settings.get("vad", {})
        return str(vad.get("version", "?"))

    def input_sha256(self, name: str) -> str:
        """The hash of ``manifest.json`` or ``asr.json`` as scored."""
        return self.provenance.inputs[name]

    def report_dict(self) -> dict[str, Any]:
        return {"kind": UNIFIED_KIND, "schema_version": 1,
                "definitions_version": self.definitions_version,
                "provenance": self.provenance.to_dict(), "statistics": STATISTICS,
                "subsets": {name: subset.report_dict() for name, subset in self.subsets.items()}}


@dataclass
class Timings:
    """Wall-clock seconds of each scoring phase, for the speed benchmark (which times the
    writing of the outputs itself). The VAD cache hits are verified during ``loading``;
    ``vad`` is the wait for them that is left, and the model's run on the misses."""

    loading: float = 0.0
    vad: float = 0.0
    statistics: float = 0.0


@dataclass(frozen=True)
class UnifiedResult:
    """Everything ``unified-score`` writes, plus the manifest and ASR index it read."""

    summary: UnifiedSummary
    rows: tuple[SampleRow, ...]
    manifest: Manifest
    asr: AsrIndex
    timings: Timings = field(default_factory=Timings, compare=False)
    vad_cache: CacheUse = field(default_factory=CacheUse, compare=False)


def load_sample(tree: Path, entry: ManifestSample, asr: AsrIndex) -> LoadedSample:
    """An eligible sample with its files checked and its task's annotation read."""
    return TASKS[entry.task].load(read_sample(tree, entry, asr))


def load_samples(tree: Path, manifest: Manifest, asr: AsrIndex) -> dict[str, LoadedSample]:
    """Every eligible sample of a task with unified metrics, by sample id."""
    return {entry.sample_id: load_sample(tree, entry, asr) for entry in manifest.samples
            if entry.eligible and TASKS[entry.task].scored}


def speech_jobs(tree: Path, manifest: Manifest, vad_cache: Path | None = None
                ) -> list[SpeechJob]:
    """The ``output.wav`` of every eligible sample whose task needs speech segments, to
    be segmented with the VAD cache folder ``vad_cache`` (None: none)."""
    return [SpeechJob(e.sample_id, e.file(tree, OUTPUT_WAV), e.files[OUTPUT_WAV],
                      e.input_duration_s, vad_cache)
            for e in manifest.samples
            if e.eligible and TASKS[e.task].scored and TASKS[e.task].needs_speech]


def speech_segments(run: SpeechRun, vad_cache: Path | None
                    ) -> tuple[dict[str, Spans], CacheUse]:
    """VAD segments of every job of ``run`` by sample id, and how the VAD cache folder
    ``vad_cache`` (None: none) was used."""
    with progress(len(run.jobs), "speech (Silero VAD)") as advance:
        found = run.finish(advance)
    return ({job.sample_id: item.spans for job, item in zip(run.jobs, found, strict=True)},
            CacheUse.of(vad_cache, found))


def score_sample(sample: LoadedSample, segments: Spans) -> SampleScore:
    """Per-sample quantities of one eligible sample (``segments`` only matter to the tasks
    that need speech)."""
    return TASKS[sample.entry.task].score(sample, segments)


def score_samples(loaded: dict[str, LoadedSample], segments: dict[str, Spans]
                  ) -> dict[str, SampleScore]:
    """:func:`score_sample` of every loaded sample, by sample id, each task's samples
    scored together (``Task.score_many``)."""
    by_task: dict[str, list[LoadedSample]] = {}
    for sample in loaded.values():
        by_task.setdefault(sample.entry.task, []).append(sample)
    return {sample.entry.sample_id: score
            for task, samples in by_task.items()
            for sample, score in zip(samples, TASKS[task].score_many(samples, segments),
                                     strict=True)}


def summarise(manifest: Manifest, loaded: dict[str, LoadedSample],
              segments: dict[str, Spans], *, speech: bool
              ) -> dict[str, tuple[SubsetResult, list[SampleRow]]]:
    """Each subset whose task needs the speech segments (``speech``), or each whose task
    does not, with its sample rows, by subset: the second kind is summarised while the
    VAD runs."""
    scores = score_samples({sample_id: sample for sample_id, sample in loaded.items()
                            if TASKS[sample.entry.task].needs_speech == speech}, segments)
    found: dict[str, tuple[SubsetResult, list[SampleRow]]] = {}
    for subset, task_name in SUBSET_TASKS.items():
        task = TASKS[task_name]
        selected = [e for e in manifest.samples if e.subset == subset]
        if task.needs_speech != speech or (not selected and subset not in manifest.declared):
            continue
        found[subset] = (
            task.subset(selected, manifest.declared.get(subset, len(selected)),
                        [scores[e.sample_id] for e in selected if e.sample_id in scores]),
            [SampleRow.of(e, scores.get(e.sample_id)) for e in selected] if task.scored
            else [])
    return found


def run_provenance(tree: Path, command: Sequence[str] | None, manifest: Manifest,
                   asr: AsrIndex, vad_cache: Path | None) -> Provenance:
    """The provenance record of scoring ``tree``: nothing in it depends on the speech
    segments (the VAD's identity, not its output), so it is collected while the VAD runs."""
    vad = vad_identity()
    model_files = vad_model_files()
    return collect_provenance(
        command=(tuple(command) if command is not None
                 else ("speecheval", "fdb10", "unified-score", "--tree", str(tree))),
        settings={"definitions_version": DEFINITIONS_VERSION,
                  "dataset_revision": manifest.revision, "asr": asr.identity, "vad": vad,
                  "vad_cache": "off" if vad_cache is None else "read-write"},
        inputs={MANIFEST_FILE: manifest.path, ASR_FILE: asr.path},
        models=model_files, packages=PROVENANCE_PACKAGES,
        # hashed when they were read (the bytes parsed) and by the VAD's identity
        hashed={manifest.path: manifest.sha256, asr.path: asr.sha256}
        | vad_model_hashes(vad, model_files))


def score_tree(tree: Path, *, workers: int = 1, command: Sequence[str] | None = None,
               vad_cache: Path | None = None, executor: Executor | None = None
               ) -> UnifiedResult:
    """Score a reference tree; raises InputError (exit 2) on the first failed check.

    ``command`` is the command line recorded in the provenance record (by default the
    ``unified-score`` call on ``tree``). ``vad_cache`` is the VAD cache folder (None: no
    cache). The provenance records whether a cache was on (``settings.vad_cache``), not
    its folder or its hits: an entry is keyed by everything that decides its segments,
    so a warm run writes the same bytes as a cold one (``UnifiedResult.vad_cache`` has
    the counts, which the command prints). ``executor`` runs Silero on the cache misses
    (default: ``workers`` local processes).
    """
    timings = Timings()
    started = time.perf_counter()
    with folders_checked_once():  # the tree's folders are checked once, not per file
        manifest = load_manifest(tree)
        memo = None if vad_cache is None else HashMemo(vad_cache, tree)
        with SpeechRun(speech_jobs(tree, manifest, vad_cache), workers, executor,
                       memo=memo) as speech:
            # the VAD cache hits are verified in the background while the samples load
            asr = load_asr(tree)
            loaded = load_samples(tree, manifest, asr)
            timings.loading = time.perf_counter() - started

            # what needs no speech segments is done while the VAD runs
            started = time.perf_counter()
            summaries = summarise(manifest, loaded, {}, speech=False)
            timings.statistics = time.perf_counter() - started
            record = run_provenance(tree, command, manifest, asr, vad_cache)
            started = time.perf_counter()
            segments, cache_use = speech_segments(speech, vad_cache)
    timings.vad = time.perf_counter() - started

    started = time.perf_counter()
    summaries |= summarise(manifest, loaded, segments, speech=True)
    subsets = {name: summaries[name][0] for name in SUBSET_TASKS if name in summaries}
    rows = [row for name in SUBSET_TASKS if name in summaries for row in summaries[name][1]]
    timings.statistics += time.perf_counter() - started
    summary = UnifiedSummary(DEFINITIONS_VERSION, record, subsets)
    return UnifiedResult(summary=summary, rows=tuple(rows), manifest=manifest, asr=asr,
                         timings=timings, vad_cache=cache_use)
