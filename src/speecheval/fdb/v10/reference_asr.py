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
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import __version__
from ...asr.base import SAMPLE_RATE, Recogniser, TimedWord
from ...core import canonical_json
from ...core.audio import resample
from ...core.errors import InputError
from ...core.hashing import sha256_bytes
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
    load_manifest,
    tree_file,
)

BACKENDS = ("whisper",)
CUT_RULE = ("user_interruption samples: audio cut at sample int(R * rate) before "
            "transcribing, R added to every time (official get_transcript/asr.py)")


@dataclass(frozen=True)
class AsrJob:
    """One output.wav to transcribe, with what the manifest says it must be."""

    sample_id: str
    wav: Path
    output: Path
    expected_sha256: str
    duration_s: float
    offset_s: float
    """R for interruption samples (the audio before it is cut away), else 0."""


@dataclass(frozen=True)
class AsrRun:
    """What ``reference-asr`` wrote: the transcripts by sample id and the asr.json path."""

    asr_path: Path
    transcripts: dict[str, dict[str, Any]]


_worker_recogniser: Recogniser | None = None
_worker_factory: Callable[[], Recogniser] | None = None


def _init_worker(factory: Callable[[], Recogniser]) -> None:
    global _worker_factory, _worker_recogniser
    _worker_factory, _worker_recogniser = factory, None


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


def transcribe_job(job: AsrJob) -> dict[str, Any]:
    """Verify one output.wav, transcribe it (cut at the offset) and return its transcript.

    Times are placed on the input window: the offset is added back, and a time past T
    (a word the decoder stretches over the end of the file) is set to T, so every word
    lies in ``[0, T]`` as the scorer requires.
    """
    audio = read_output(job.wav, job.expected_sha256, job.duration_s, job.sample_id)
    cut = audio.samples[int(job.offset_s * audio.rate):]
    words = _recogniser().words(resample(cut, audio.rate, SAMPLE_RATE)) if cut.size else []
    end = job.duration_s
    return transcript_of([TimedWord(w.text, min(w.start_s + job.offset_s, end),
                                    min(max(w.end_s, w.start_s) + job.offset_s, end))
                          for w in words])


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


def _transcribe_all(jobs: Sequence[AsrJob], workers: int,
                    factory: Callable[[], Recogniser]) -> list[dict[str, Any]]:
    with progress(len(jobs), "reference-asr") as advance:
        if workers <= 1 or len(jobs) <= 1:
            _init_worker(factory)
            results = []
            for job in jobs:
                results.append(transcribe_job(job))
                advance()
            return results
        with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker,
                                 initargs=(factory,)) as pool:
            results = []
            for result in pool.map(transcribe_job, jobs):
                results.append(result)
                advance()
            return results


def reference_asr(tree: Path, *, workers: int = 1,
                  factory: Callable[[], Recogniser] = whisper_factory) -> AsrRun:
    """Transcribe every eligible sample of ``tree`` and write output.json and asr.json.

    ``factory`` makes the recogniser in each worker process (it must be picklable: a
    module-level function). The recogniser's identity goes into asr.json.
    """
    jobs = plan_jobs(tree)
    transcripts = _transcribe_all(jobs, workers, factory)
    identity = dict(factory().identity())
    identity["interruption_cut"] = CUT_RULE
    written: list[Path] = []
    hashes: dict[str, str] = {}
    asr_path = tree_file(tree, ASR_FILE)
    try:
        for job, transcript in zip(jobs, transcripts, strict=True):
            text = canonical_json.dumps(transcript)
            atomic_write_text(job.output, text)
            written.append(job.output)
            hashes[job.sample_id] = sha256_bytes(text.encode("utf-8"))
        atomic_write_text(asr_path, canonical_json.dumps({
            "kind": ASR_KIND, "schema_version": SCHEMA_VERSION,
            "speecheval_version": __version__, "asr": identity, "transcripts": hashes}))
    except BaseException:
        for path in written:
            with contextlib.suppress(OSError):
                path.unlink()
        raise
    return AsrRun(asr_path=asr_path,
                  transcripts={job.sample_id: t for job, t in zip(jobs, transcripts,
                                                                   strict=True)})
