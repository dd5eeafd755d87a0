"""Silero speech segments of interruption outputs, checked against the manifest.

Each ``output.wav`` is read once: its bytes are hashed (to prove it is the file the
manifest lists), decoded, checked to hold exactly round(T * rate) samples, and passed to
the speech detector, a :class:`speecheval.vad.base.Vad` (Silero defines speech for FDB
v1.0). Files are independent, so they are spread over worker processes; the caller's
``advance`` is called once per finished file, for the progress display.

A job may name a VAD cache folder (:mod:`speecheval.vad.cache`). Its entry is looked up
first, in this process, by the SHA-256 the manifest lists; a hit skips decoding and the
model, but not the checks: the file's bytes are still hashed and must match that SHA-256
(in threads: hashlib releases the GIL), and the sample count stored with the entry still
has to be round(T * rate). Only files without a valid entry go to the worker processes,
which verify, decode and segment them and store the result. Each file is read and hashed
once either way, and a run whose files all hit starts no worker and never loads the
model. The segments are the same either way, so nothing scored depends on the cache;
what it did is counted in :class:`CacheUse`. With a cache folder, a run may also be given
a :class:`~.hash_memo.HashMemo`: then a hit's file untouched since a run hashed it in
full is not hashed again, and the files the workers hash are remembered for next time.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ...core.audio import Audio, decode_mono
from ...core.errors import InputError
from ...core.executor import LocalExecutor, Run, next_batch_size
from ...core.hashing import sha256_bytes, sha256_file
from ...core.progress import Advance
from ...core.timebase import to_us
from ...core.timeline import Span, Spans
from ...vad.cache import CachedSegments, Lookup, VadCache
from .hash_memo import HashMemo, Record, regular_file, settled_record

if TYPE_CHECKING:
    from ...core.executor import Executor
    from ...vad.silero import SileroVad


@dataclass(frozen=True)
class SpeechJob:
    """One file to segment, with what the manifest says it must be, and the VAD cache
    folder to use (None: no cache)."""

    sample_id: str
    path: Path
    expected_sha256: str
    duration_s: float
    cache_dir: Path | None = None


@dataclass(frozen=True)
class Segmented:
    """A file's segments and what the cache did for it (None: no cache)."""

    spans: Spans
    lookup: Lookup | None = None
    proof: Record | None = None  # what the hash memo may keep of a file hashed by a worker


@dataclass(frozen=True)
class CacheUse:
    """How a run used the VAD cache: its folder (None: off) and the lookups by outcome
    (``hit``, ``miss``, ``corrupt``: an entry that failed its checks and was replaced)."""

    folder: Path | None = None
    lookups: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, folder: Path | None, found: Sequence[Segmented]) -> CacheUse:
        counts = Counter(item.lookup for item in found if item.lookup is not None)
        return cls(folder, {name: counts.get(name, 0) for name in ("hit", "miss", "corrupt")})

    def describe(self) -> str:
        """One line for the console."""
        if self.folder is None:
            return "VAD cache: off"
        return (f"VAD cache {self.folder}: {self.lookups['hit']} hits, "
                f"{self.lookups['miss']} misses, {self.lookups['corrupt']} corrupt "
                f"entries recomputed")


# Files a worker segments together, their LSTM steps run as one batch, and the longest
# file that goes in a group (see job_groups).
GROUP_FILES, GROUP_MAX_S = 4, 60.0
_worker_vad: SileroVad | None = None


def _vad() -> SileroVad:
    """This process's Silero instance (imported late: onnxruntime is slow to import)."""
    global _worker_vad
    if _worker_vad is None:
        from ...vad.silero import SileroVad

        _worker_vad = SileroVad()
    return _worker_vad


def expected_samples(duration_s: float, rate: int) -> int:
    """round(T * rate): the sample count an output of T seconds must have."""
    return round(duration_s * rate)


def read_verified(path: Path, expected_sha256: str, sample_id: str) -> bytes:
    """The bytes of one output.wav after checking it is the file manifest.json names."""
    return read_proved(path, expected_sha256, sample_id)[0]


def read_proved(path: Path, expected_sha256: str, sample_id: str
                ) -> tuple[bytes, Record | None]:
    """:func:`read_verified`, and what the hash memo may remember of the file (None: it
    changed while or shortly before it was read)."""
    name = os.fspath(path)
    before = regular_file(name, InputError("output.wav is missing", path=path,
                                           sample_id=sample_id))
    data = path.read_bytes()
    digest = sha256_bytes(data)
    _check_sha256(digest, expected_sha256, path, sample_id)
    return data, settled_record(name, before, digest)


def verify_file(path: Path, expected_sha256: str, sample_id: str,
                memo: HashMemo | None = None) -> None:
    """Check that one output.wav is the file manifest.json names, without keeping its
    bytes (a cache hit needs only the proof); with a ``memo``, a file untouched since an
    earlier run hashed it is not read again (:mod:`.hash_memo`)."""
    missing = InputError("output.wav is missing", path=path, sample_id=sample_id)
    if memo is not None:
        actual = memo.sha256(path, missing)
    elif path.is_file():
        actual = sha256_file(path)
    else:
        raise missing
    _check_sha256(actual, expected_sha256, path, sample_id)


def _check_sha256(actual: str, expected: str, path: Path, sample_id: str) -> None:
    if actual != expected:
        raise InputError(f"output.wav differs from manifest.json (sha256 {actual[:12]}..., "
                         f"manifest {expected[:12]}...)", path=path, sample_id=sample_id)


def check_length(n_samples: int, rate: int, duration_s: float, path: Path,
                 sample_id: str) -> None:
    """An output of T seconds must hold exactly round(T * rate) samples."""
    want = expected_samples(duration_s, rate)
    if n_samples != want:
        raise InputError(f"output.wav holds {n_samples} samples at {rate} Hz, "
                         f"but T = {duration_s} s needs exactly {want}", path=path,
                         sample_id=sample_id)


def read_output(path: Path, expected_sha256: str, duration_s: float,
                sample_id: str) -> Audio:
    """Read one output.wav after checking it is the file manifest.json names (its
    SHA-256) and holds exactly round(T * rate) samples; anything else is bad input."""
    return decode_output(read_verified(path, expected_sha256, sample_id), path, duration_s,
                         sample_id)


def decode_output(data: bytes, path: Path, duration_s: float, sample_id: str) -> Audio:
    """Decode the verified bytes of an output.wav of T seconds and check its length."""
    audio = decode_mono(data, name=path, sample_id=sample_id)
    check_length(audio.n_samples, audio.rate, duration_s, path, sample_id)
    return audio


@cache
def _cache(folder: Path) -> VadCache:
    """This process's view of the cache folder, keyed by this process's detector."""
    return VadCache(folder, _vad().identity())


def segment_job(job: SpeechJob) -> Segmented:
    """Verify one output.wav and find its speech segments: from the job's cache folder
    when it holds a valid entry for these bytes, else from the model (then stored)."""
    lookup, found = _look_up(job)
    if found is not None:
        return _verified_hit(job, found)
    return _segment_uncached((job, lookup))


def _look_up(job: SpeechJob) -> tuple[Lookup | None, CachedSegments | None]:
    """The job's cache entry, found by the SHA-256 the manifest lists (None, None: no
    cache). Nothing found is trusted before :func:`_verified_hit` checks the file."""
    if job.cache_dir is None:
        return None, None
    return _cache(job.cache_dir).get(job.expected_sha256)


def _look_up_all(jobs: Sequence[SpeechJob]) -> list[tuple[Lookup | None,
                                                         CachedSegments | None]]:
    """:func:`_look_up` of every job, in order; in a cache folder that does not exist
    yet, as on a first run, every lookup is a miss, found without computing an entry
    key and failing to open a file per job (some 20 ms for the 196 outputs of the
    full-size tree, before the workers can start). So is every lookup in a folder that
    cannot be reached (``os.path.lexists`` false for any error): nothing can be read
    from it either."""
    absent = {folder for folder in {job.cache_dir for job in jobs}
              if folder is not None and not os.path.lexists(folder)}
    return [("miss", None) if job.cache_dir in absent else _look_up(job) for job in jobs]


def _verified_hit(job: SpeechJob, found: CachedSegments, memo: HashMemo | None = None
                  ) -> Segmented:
    """A cache hit, once the file's bytes match the manifest and the entry's length is
    round(T * rate)."""
    verify_file(job.path, job.expected_sha256, job.sample_id, memo)
    check_length(found.n_samples, found.rate, job.duration_s, job.path, job.sample_id)
    return Segmented(_on_timeline(found, job), "hit")


def _segment_uncached(work: tuple[SpeechJob, Lookup | None]) -> Segmented:
    """Verify, decode and segment one file without a valid cache entry, and store the
    result when the job has a cache folder."""
    return _segment_group([work])[0]


def _segment_group(work: Sequence[tuple[SpeechJob, Lookup | None]]) -> list[Segmented]:
    """:func:`_segment_uncached` of a few files at once (a worker's task: one picklable
    argument), the detector running them together (``segments_many``: their LSTM steps
    as one batch, each file's numbers the same as alone).

    The files are read, verified and decoded in job order, so the first bad one in job
    order is the one reported, as file by file (the detector refuses only audio that
    decoding already refuses: non-finite samples)."""
    jobs = [job for job, _ in work]
    audios, proofs = [], []
    for job in jobs:  # each file read, checked and decoded before the next is read
        data, proof = read_proved(job.path, job.expected_sha256, job.sample_id)
        audios.append(decode_output(data, job.path, job.duration_s, job.sample_id))
        proofs.append(proof)
    results = []
    for (job, lookup), found, proof in zip(work, _detect(jobs, audios), proofs, strict=True):
        if job.cache_dir is not None:
            _cache(job.cache_dir).put(job.expected_sha256, found)
        results.append(Segmented(_on_timeline(found, job), lookup, proof))
    return results


def _detect(jobs: Sequence[SpeechJob], audios: Sequence[Audio]) -> list[CachedSegments]:
    """The detector's segments of the decoded files of ``jobs``, run together; the first
    file it refuses is named by its sample."""
    vad = _vad()
    try:
        found = vad.segments_many(audios, [job.path for job in jobs])
    except InputError as exc:
        refused = next((job for job in jobs if os.fspath(job.path) == exc.path), None)
        if refused is None:  # not about one file (the model missing, say)
            raise
        raise InputError(exc.problem, path=refused.path, sample_id=refused.sample_id
                         ) from exc
    return [CachedSegments(audio.rate, audio.n_samples, tuple(spans))
            for audio, spans in zip(audios, found, strict=True)]


def _on_timeline(found: CachedSegments, job: SpeechJob) -> Spans:
    """The detector's segments of a file on the sample's timeline [0, T] (microseconds)."""
    duration_us = to_us(job.duration_s)
    file_end_us = to_us(found.n_samples / found.rate)
    return Spans.from_spans(
        Span(min(s.start_us, duration_us), _segment_end(s.end_us, file_end_us, duration_us))
        for s in found.segments)


def segment_file(job: SpeechJob) -> Spans:
    """Verify one output.wav and return its speech segments in microseconds."""
    return segment_job(job).spans


def _segment_end(end_us: int, file_end_us: int, duration_us: int) -> int:
    """A segment that reaches the end of the file runs to T.

    The file holds round(T * rate) samples, so it can end up to half a sample before (or
    after) T: speech running to its last sample must still count as running to T (no
    observed stop), and nothing may end after T.

    >>> _segment_end(10_000_167, 10_000_167, 10_000_188)
    10000188
    >>> _segment_end(9_000_000, 10_000_167, 10_000_188)
    9000000
    """
    return duration_us if end_us >= file_end_us else min(end_us, duration_us)


def segment_files(jobs: Sequence[SpeechJob], workers: int, advance: Advance) -> list[Spans]:
    """Segments of every job, in order; ``workers`` <= 1 runs in this process."""
    return [item.spans for item in segment_jobs(jobs, workers, advance)]


def segment_jobs(jobs: Sequence[SpeechJob], workers: int, advance: Advance
                 ) -> list[Segmented]:
    """:func:`segment_job` on every job, in order; ``workers`` <= 1 runs in this process."""
    with SpeechRun(jobs, workers) as run:
        return run.finish(advance)


class SpeechRun:
    """The segments of a list of jobs, found in two steps so that both the model and the
    cheap checks overlap the caller's other work.

    Made (as a context manager), it looks every job up in the VAD cache, starts the
    model on the misses on the executor (by default ``workers`` local worker processes;
    ``workers`` <= 1, or a single miss: later, in this process), and starts verifying
    the hits (reading and hashing each file) in ``workers - 1`` threads of this process
    (at least one), all in the background: the workers need nothing the caller is about
    to load, and hashlib and file reads release the GIL. The processes are started
    before the threads, as forking wants. :meth:`finish` then collects every job's
    result in order. Leaving the ``with`` block early (the caller's input was bad)
    cancels the work not yet started and waits for what is running.
    """

    def __init__(self, jobs: Sequence[SpeechJob], workers: int,
                 executor: Executor | None = None, memo: HashMemo | None = None) -> None:
        self.jobs = list(jobs)
        self._memo = memo
        looked = _look_up_all(self.jobs)
        hits = [(i, entry) for i, (_, entry) in enumerate(looked) if entry is not None]
        self._rest = [i for i, (_, entry) in enumerate(looked) if entry is None]
        # the seam's start is eager: a local pool's processes start here
        # a task is a group of outputs: some 60 ms for four of 30 s
        chosen = executor or LocalExecutor(workers, small_items=True)
        self._groups = [[self._rest[k] for k in group] for group in job_groups(
            [self.jobs[i].duration_s for i in self._rest], workers)]
        self._misses: Run[list[Segmented]] = chosen.start(
            _segment_group, [[(self.jobs[i], looked[i][0]) for i in group]
                             for group in self._groups], name=_group_name)
        self._threads = ThreadPoolExecutor(max_workers=max(1, workers - 1)) if hits else None
        self._hits: dict[int, Future[Segmented]] = {
            i: self._threads.submit(_verified_hit, self.jobs[i], entry, memo)
            for i, entry in hits} if self._threads is not None else {}

    def __enter__(self) -> SpeechRun:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._threads is not None:
            self._threads.shutdown(cancel_futures=True)
        self._misses.close()

    def finish(self, advance: Advance) -> list[Segmented]:
        """Every job's segments, in order: the verified hits first (a changed file stops
        the run), then the rest from the model (the first bad file in job order stops
        it)."""
        found: dict[int, Segmented] = {}
        for i, future in self._hits.items():
            found[i] = future.result()
            advance()
        for group, result in zip(self._groups, self._misses.results(), strict=True):
            for i, segmented in zip(group, result.get(), strict=True):
                found[i] = segmented
                if self._memo is not None:
                    self._memo.remember(self.jobs[i].path, segmented.proof)
            advance(len(group))
        if self._memo is not None:
            self._memo.save()
        return [found[i] for i in range(len(self.jobs))]


def job_groups(durations_s: Sequence[float], workers: int) -> list[list[int]]:
    """Which files (by index, in order) each worker task segments together.

    Up to ``GROUP_FILES`` consecutive files a task, their LSTM steps run as one batch;
    fewer towards the end (:func:`~speecheval.core.executor.next_batch_size`, as the
    executor's chunks: at most a quarter of what each worker has left), since the last
    task decides when the run ends; and a file longer than ``GROUP_MAX_S`` alone (a group's decoded
    audio is held at once; past 65.5 s the detector runs a file block by block anyway).
    ``workers`` below 1 counts as 1.

    >>> # 4 files while 32 or more are left (32 // (4 * 2) = 4), then 28 // 8 = 3, ...
    >>> sizes = [len(group) for group in job_groups([30.0] * 196, 2)]
    >>> sizes[:42] == [4] * 42, sizes[42:48], sizes[48:] == [1] * 14
    (True, [3, 3, 2, 2, 2, 2], True)
    >>> job_groups([30.0] * 6, 1)  # 6 // 4 = 1: the last 4 * workers files go one by one
    [[0], [1], [2], [3], [4], [5]]
    >>> job_groups([30.0, 30.0, 61.0] + [30.0] * 40, 1)[:4]
    [[0, 1], [2], [3, 4, 5, 6], [7, 8, 9, 10]]
    """
    found: list[list[int]] = []
    index = 0
    while index < len(durations_s):
        size = next_batch_size(len(durations_s) - index, GROUP_FILES, workers)
        group = [index]
        index += 1
        if durations_s[group[0]] <= GROUP_MAX_S:
            while (len(group) < size and index < len(durations_s)
                   and durations_s[index] <= GROUP_MAX_S):
                group.append(index)
                index += 1
        found.append(group)
    return found


def _group_name(work: Sequence[tuple[SpeechJob, Lookup | None]], index: int) -> str:
    """How a failed worker task is named: by the samples it held.

    >>> job = SpeechJob("u1", Path("u1/output.wav"), "0" * 64, 30.0)
    >>> _group_name([(job, None)], 0), _group_name([(job, None), (job, "miss")], 3)
    ('sample u1', 'samples u1, u1')
    """
    ids = [job.sample_id for job, _ in work]
    return f"sample{'s' if len(ids) > 1 else ''} {', '.join(ids)}"


def vad_identity() -> dict[str, object]:
    """Silero version, model hash and settings, as recorded in unified.json."""
    return _vad().identity()


def vad_model_files() -> dict[str, Path]:
    """The Silero model file by name, for the provenance record's model hashes."""
    from ...vad.silero_model import locate_model_files

    model = locate_model_files().model
    return {model.name: model}


def vad_model_hashes(identity: dict[str, object], files: dict[str, Path]
                     ) -> dict[Path, str]:
    """The SHA-256 of each of the model ``files`` (:func:`vad_model_files`) that
    ``identity`` (this process's :func:`vad_identity`) already holds, by path: the
    provenance record takes them from there instead of hashing the model file (2.3 MB)
    again."""
    return {path: str(identity["model_sha256"]) for name, path in files.items()
            if name == identity.get("model_file")}
