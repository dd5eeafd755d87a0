"""``reference-asr``: transcribe a reference tree's outputs into ``output.json`` files.

Each eligible sample's ``output.wav`` (checked against its manifest hash and its length
T) is transcribed into ``output.json`` in the official format, and ``asr.json`` records
the recogniser's identity and every transcript's hash, so ``unified-score`` can prove it
scores these transcripts. As the official ``get_transcript/asr.py`` does, an interruption
sample's audio is cut at R (sample ``int(R * rate)``) before transcribing and R is added
back to every time, so its transcript holds only words from R on.

The tree is only added to: a tree that already has ``asr.json``, or an eligible sample
that already has ``output.json``, is refused before any work. Transcripts are computed
first and written afterwards, ``asr.json`` last; if writing fails, the transcripts
already written are removed again, so a tree never holds transcripts without their index.

A backend that fails on one sample (a server's error reply, a truncated answer) does not
stop the others: every sample is tried, and if any failed, nothing is written and the run
ends with each failed sample and its reason (exit 3). ``unified-score`` needs a transcript
for every eligible sample, so a tree is transcribed completely or not at all.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ... import __version__
from ...asr.base import SAMPLE_RATE, Recogniser, RecognitionFailed, TimedWord
from ...core import canonical_json
from ...core.audio import resample
from ...core.errors import InputError, SpeechEvalError, SystemUnderTestError, WorkerDied
from ...core.executor import Executor, ItemResult, LocalExecutor
from ...core.hashing import sha256_bytes
from ...core.numeric_env import numeric_environment
from ...core.output import atomic_write_text
from ...core.progress import progress
from ...core.timebase import to_us
from .annotations import load_interruption
from .speech import read_output
from .tree import (
    ASR_FILE,
    ASR_KIND,
    OUTPUT_JSON,
    OUTPUT_WAV,
    SCHEMA_VERSION,
    USER_INTERRUPTION,
    ManifestSample,
    tree_file,
)
from .tree_read import load_manifest

CUT_RULE = ("user_interruption samples: audio cut at sample int(R * rate) before "
            "transcribing, R added to every time (official get_transcript/asr.py)")


@dataclass(frozen=True)
class AsrJob:
    """One output.wav to transcribe, with what the manifest says it must be."""

    sample_id: str
    """The job's name (in errors and as its key in the index file)."""
    wav: Path
    output: Path
    expected_sha256: str
    duration_s: float
    offset_s: float
    """R for interruption samples (the audio before it is cut away), else 0."""


@dataclass(frozen=True)
class JobResult:
    """One sample's transcript, or why the backend gave none; and the backend's retries."""

    sample_id: str
    transcript: dict[str, Any] | None
    failure: str | None = None
    retries: int = 0


@dataclass(frozen=True)
class AsrRun:
    """What ``reference-asr`` wrote: the transcripts by sample id, the asr.json path, and
    how many requests the backend sent again (a server backend's retries, else 0)."""

    asr_path: Path
    transcripts: dict[str, dict[str, Any]]
    retries: int = 0


SHOWN_FAILURES = 10
"""Failed samples named in the error line; the rest are counted."""


class AsrFailed(SystemUnderTestError):
    """The backend gave no words for some samples; nothing was written."""

    def __init__(self, failures: Sequence[JobResult], total: int) -> None:
        self.failures = [(f.sample_id, f.failure or "") for f in failures]
        shown = "; ".join(f"sample {sid}: {reason}"
                          for sid, reason in self.failures[:SHOWN_FAILURES])
        more = len(self.failures) - SHOWN_FAILURES
        super().__init__(f"the recogniser failed on {len(self.failures)} of {total} samples, "
                         f"nothing was written: {shown}"
                         + (f"; and {more} more" if more > 0 else ""))


_worker_recogniser: Recogniser | None = None
_worker_factory: Callable[[], Recogniser] | None = None


def _init_worker(factory: Callable[[], Recogniser], made: Recogniser | None = None) -> None:
    global _worker_factory, _worker_recogniser
    _worker_factory, _worker_recogniser = factory, made


def _recogniser() -> Recogniser:
    """This process's recogniser, made once (loading a model takes a while)."""
    global _worker_recogniser
    if _worker_recogniser is None:
        assert _worker_factory is not None
        _worker_recogniser = _worker_factory()
    return _worker_recogniser


def whisper_factory() -> Recogniser:
    """The default backend (imported late: faster-whisper is slow to import)."""
    from ...asr.whisper import WhisperRecogniser

    return WhisperRecogniser()


def transcript_of(words: Sequence[TimedWord]) -> dict[str, Any]:
    """The official ``output.json`` object: the text and one chunk per word.

    >>> transcript_of([TimedWord("Hello,", 1.0, 1.4), TimedWord("there", 1.5, 1.9)])
    {'text': 'Hello, there', 'chunks': [{'text': 'Hello,', 'timestamp': [1.0, 1.4]}, \
{'text': 'there', 'timestamp': [1.5, 1.9]}]}
    """
    return {"text": " ".join(w.text for w in words),
            "chunks": [{"text": w.text, "timestamp": [w.start_s, w.end_s]} for w in words]}


def transcribe_job(job: AsrJob) -> JobResult:
    """Verify one output.wav, transcribe it (cut at the offset) and return its transcript.

    Times are placed on the input window: the offset is added back, and a time past T
    (a word the decoder stretches over the end of the file) is set to T, so every word
    lies in ``[0, T]`` as the scorer requires. A :class:`RecognitionFailed` from the
    backend becomes this sample's failure; bad input (a changed output.wav) still stops.
    """
    audio = read_output(job.wav, job.expected_sha256, job.duration_s, job.sample_id)
    cut = audio.samples[int(job.offset_s * audio.rate):]
    recogniser = _recogniser()
    retries_before = _retries(recogniser)
    try:
        words = recogniser.words(resample(cut, audio.rate, SAMPLE_RATE)) if cut.size else []
    except RecognitionFailed as failed:
        return JobResult(job.sample_id, None, failed.reason,
                         _retries(recogniser) - retries_before)
    end = job.duration_s
    transcript = transcript_of([TimedWord(w.text, min(w.start_s + job.offset_s, end),
                                          min(max(w.end_s, w.start_s) + job.offset_s, end))
                                for w in words])
    return JobResult(job.sample_id, transcript, None, _retries(recogniser) - retries_before)


def _retries(recogniser: Recogniser) -> int:
    """Requests a server backend has sent again so far (``retries``), 0 for the others."""
    return int(getattr(recogniser, "retries", 0))


def _job(tree: Path, sample: ManifestSample, output: Path) -> AsrJob:
    offset = 0.0
    if sample.task == USER_INTERRUPTION:
        interrupt = sample.file(tree, "interrupt.json")
        span = load_interruption(interrupt, sample.sample_id, to_us(sample.input_duration_s))
        offset = span.end_us / 1e6
    return AsrJob(sample_id=sample.sample_id, wav=sample.file(tree, OUTPUT_WAV), output=output,
                  expected_sha256=sample.files[OUTPUT_WAV],
                  duration_s=sample.input_duration_s, offset_s=offset)


def plan_jobs(tree: Path) -> list[AsrJob]:
    """Every eligible sample's job, after refusing a tree that is already transcribed."""
    asr_path = tree_file(tree, ASR_FILE)
    if asr_path.exists() or asr_path.is_symlink():
        raise InputError("the tree already has asr.json; reference-asr never overwrites "
                         "transcripts (transcribe a fresh copy of the tree)", path=asr_path)
    manifest = load_manifest(tree)
    jobs = []
    for sample in manifest.samples:
        if not sample.eligible:
            continue
        existing = sample.file(tree, OUTPUT_JSON)
        if existing.exists() or existing.is_symlink():
            raise InputError("output.json already exists but the tree has no asr.json; "
                             "remove the stale transcripts first", path=existing,
                             sample_id=sample.sample_id)
        jobs.append(_job(tree, sample, existing))
    return jobs


def _transcribe_all(jobs: Sequence[AsrJob], executor: Executor,
                    factory: Callable[[], Recogniser], made: Recogniser) -> list[JobResult]:
    """Every job's result, in job order. Bad input stops the run; a worker that died on a
    sample every time it was tried makes that sample's failure."""
    _init_worker(factory, made)  # this process's recogniser, for work run here
    with progress(len(jobs), "reference-asr") as advance:
        outcomes = executor.map(transcribe_job, jobs, setup=partial(_init_worker, factory),
                                advance=advance, stop_on=(SpeechEvalError,))
    return [_job_result(job, outcome) for job, outcome in zip(jobs, outcomes, strict=True)]


def _job_result(job: AsrJob, outcome: ItemResult[JobResult]) -> JobResult:
    if isinstance(outcome.error, WorkerDied):
        return JobResult(job.sample_id, None, str(outcome.error))
    return outcome.get()


def reference_asr(tree: Path, *, executor: Executor | None = None,
                  factory: Callable[[], Recogniser] = whisper_factory) -> AsrRun:
    """Transcribe every eligible sample of ``tree`` and write output.json and asr.json.

    ``factory`` makes the recogniser in each worker process (it must be picklable: a
    module-level function, or a ``functools.partial`` of one). It is called once here
    first, so a backend that cannot start (a missing package or key) stops the run before
    any sample is transcribed; that recogniser's identity goes into asr.json. The samples
    run on ``executor`` (default: one after another in this process).
    """
    jobs = plan_jobs(tree)
    identity, transcripts, retries = transcribe_jobs(jobs, executor, factory)
    identity["interruption_cut"] = CUT_RULE
    asr_path = tree_file(tree, ASR_FILE)
    write_transcripts(jobs, transcripts, asr_path, {
        "kind": ASR_KIND, "schema_version": SCHEMA_VERSION,
        "speecheval_version": __version__, "asr": identity,
        "numeric": numeric_environment()})
    return AsrRun(asr_path=asr_path,
                  transcripts={job.sample_id: t for job, t in zip(jobs, transcripts,
                                                                   strict=True)},
                  retries=retries)


def transcribe_jobs(jobs: Sequence[AsrJob], executor: Executor | None,
                    factory: Callable[[], Recogniser]
                    ) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """The recogniser's identity, every job's transcript (in order) and the retries; the
    jobs run on ``executor`` (default: one after another in this process).

    ``factory`` is called here first, so a backend that cannot start stops the run before
    any job; if the backend fails on any job, :class:`AsrFailed` names them all.
    """
    recogniser = factory()
    results = _transcribe_all(jobs, executor or LocalExecutor(1), factory, recogniser)
    failures = [r for r in results if r.transcript is None]
    if failures:
        raise AsrFailed(failures, len(results))
    transcripts = [r.transcript for r in results if r.transcript is not None]
    return dict(recogniser.identity()), transcripts, sum(r.retries for r in results)


def write_transcripts(jobs: Sequence[AsrJob], transcripts: Sequence[dict[str, Any]],
                      index_path: Path, index: dict[str, Any]) -> None:
    """Write each job's transcript to its output, then ``index`` (with ``transcripts``:
    each job's name -> the SHA-256 of its file) to ``index_path``, last; on any failure
    the transcripts already written are removed again."""
    written: list[Path] = []
    hashes: dict[str, str] = {}
    try:
        for job, transcript in zip(jobs, transcripts, strict=True):
            text = canonical_json.dumps(transcript)
            atomic_write_text(job.output, text)
            written.append(job.output)
            hashes[job.sample_id] = sha256_bytes(text.encode("utf-8"))
        atomic_write_text(index_path, canonical_json.dumps({**index, "transcripts": hashes}))
    except BaseException:
        for path in written:
            with contextlib.suppress(OSError):
                path.unlink()
        raise
