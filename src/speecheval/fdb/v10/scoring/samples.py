"""One eligible sample read from the tree: its files checked, its transcript parsed.

The checks every task shares live here (``output.wav`` mono with exactly round(T * rate)
samples, transcript and annotation equal to the hashes ``asr.json`` and
``manifest.json`` list); the task then reads its own annotation
(:meth:`speecheval.fdb.v10.scoring.tasks.Task.load`) from the content parsed here. Each of the
two JSON files is read once: the bytes that are hashed are the bytes that are parsed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ....core.audio import audio_info
from ....core.errors import InputError
from ....core.hashing import sha256_bytes
from ....core.paths import is_file
from ....core.timebase import to_us
from ....core.timeline import Span, Spans
from ...common.annotations import TRANSCRIPT, Word, words_from
from ...common.speech import expected_samples
from ...common.tree import OUTPUT_JSON, OUTPUT_WAV, AsrIndex, ManifestSample, parse_json

# One empty Spans for every sample without pauses (a Spans is read-only): making one per
# sample cost about 8 us each, once per sample (read_sample; the task's replace copies
# the field).
NO_PAUSES = Spans.empty()


@dataclass(frozen=True)
class LoadedSample:
    """An eligible sample's checked transcript and annotation (times in microseconds).

    ``annotation_data`` is the parsed (checked) annotation file, which the task reads;
    only the annotation of the sample's task is set: ``pauses`` for pause handling,
    ``turn_end_us`` (E) for turn taking, ``interruption`` ([S, R)) for interruption.
    """

    entry: ManifestSample
    duration_us: int
    transcript: Path
    annotation: Path
    words: tuple[Word, ...]
    annotation_data: Any = None
    pauses: Spans = field(default_factory=lambda: NO_PAUSES)
    turn_end_us: int | None = None
    interruption: Span | None = None


def _read_checked(path: Path, expected: str | None, sample_id: str, against: str) -> bytes:
    """The bytes of ``path`` once they hash to what ``against`` lists."""
    if expected is None:
        raise InputError(f"{against} lists no sha256 for {path.name}", path=path,
                         sample_id=sample_id)
    if not is_file(path):
        raise InputError(f"{path.name} is missing", path=path, sample_id=sample_id)
    data = _file_bytes(path)
    actual = sha256_bytes(data)
    if actual != expected:
        raise InputError(f"{path.name} differs from {against} (sha256 {actual[:12]}..., "
                         f"{against} {expected[:12]}...)", path=path, sample_id=sample_id)
    return data


def _file_bytes(path: Path) -> bytes:
    """``path.read_bytes()`` in fewer steps: an ``os.open``, its size from ``fstat`` and
    reads to the end, without the buffered file object (a third of the time for the
    1,300 small JSON files of a full-size tree)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = [os.read(fd, os.fstat(fd).st_size + 1)]
        while chunks[-1]:  # to the end, whatever the size said
            chunks.append(os.read(fd, 1 << 16))
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_sample(tree: Path, entry: ManifestSample, asr: AsrIndex) -> LoadedSample:
    """Check an eligible sample's files against the manifest and asr.json and read its
    words; the task reads the annotation."""
    sid = entry.sample_id
    duration_us = to_us(entry.input_duration_s)
    wav = entry.file(tree, OUTPUT_WAV)
    if not is_file(wav):
        raise InputError("output.wav is missing", path=wav, sample_id=sid)
    info = audio_info(wav, sample_id=sid)
    if info.channels != 1:
        raise InputError(f"output.wav must be mono, found {info.channels} channels", path=wav,
                         sample_id=sid)
    want = expected_samples(entry.input_duration_s, info.rate)
    if info.n_samples != want:
        raise InputError(f"output.wav holds {info.n_samples} samples at {info.rate} Hz, but "
                         f"T = {entry.input_duration_s} s needs exactly {want}", path=wav,
                         sample_id=sid)
    transcript = entry.file(tree, OUTPUT_JSON)
    if sid not in asr.transcripts:
        raise InputError("asr.json has no transcript hash for this eligible sample",
                         path=asr.path, sample_id=sid)
    transcript_bytes = _read_checked(transcript, asr.transcripts[sid], sid, "asr.json")
    annotation_name = entry.annotation_file
    assert annotation_name is not None
    annotation = entry.file(tree, annotation_name)
    annotation_bytes = _read_checked(annotation, entry.files.get(annotation_name), sid,
                                     "manifest.json")
    words = words_from(parse_json(transcript_bytes, transcript, sample_id=sid,
                                  what=TRANSCRIPT), transcript, sid, duration_us)
    annotation_data = parse_json(annotation_bytes, annotation, sample_id=sid,
                                 what=annotation_name)
    return LoadedSample(entry, duration_us, transcript, annotation, words, annotation_data)
