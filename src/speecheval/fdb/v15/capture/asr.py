"""``fdb15 asr``: word-timed transcripts of a v1.5 tree, in the files the official scripts read.

For every eligible pair of an ``fdb15 export`` tree, ``output.wav`` and
``clean_output.wav`` (both members' replies, whole: v1.5 has no cut at the overlap) are
transcribed into ``output.json`` and ``clean_output.json`` in the official format, with
the recognisers, silence guard and word timestamps of v1.0's ``reference-asr``
(:mod:`...common.reference_asr`). ``eval_behavior.py`` also reads ``input.json`` and
``clean_input.json``, so the two inputs are transcribed too unless ``--no-inputs``.

Every audio file is checked against the manifest's hash and its length T first.
``asr.json`` at the tree root names the recogniser and the SHA-256 of every transcript
by ``<scenario>/<id>/<file>``. As in v1.0, the tree is only added to (a tree with
``asr.json`` or a stray transcript is refused before any work), a backend failure on any
file writes nothing (exit 3), and ``asr.json`` is written last.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .... import __version__
from ....asr.base import Recogniser
from ....core.errors import InputError
from ....core.executor import Executor, LocalExecutor
from ....core.numeric_env import numeric_environment
from ...common.reference_asr import AsrJob, transcribe_jobs, write_transcripts
from ...common.tree import tree_file
from ..dataset.layout import CLEAN_INPUT_WAV, INPUT_WAV
from .export import MANIFEST_KIND, OUTPUT_FILES, SCHEMA_VERSION

ASR_FILE = "asr.json"
ASR_KIND = "fdb-v1.5-asr"
MANIFEST_FILE = "manifest.json"

OUTPUT_AUDIO = {OUTPUT_FILES["input"]: "input", OUTPUT_FILES["clean_input"]: "clean_input"}
"""Each reply's file -> the member whose input length T it has."""
INPUT_AUDIO = {INPUT_WAV: "input", CLEAN_INPUT_WAV: "clean_input"}


def transcript_name(wav: str) -> str:
    """``clean_output.wav`` -> ``clean_output.json`` (the official names)."""
    return wav.removesuffix(".wav") + ".json"


def _manifest(tree: Path) -> tuple[Path, list[dict[str, Any]]]:
    from ....core.schema import load_document

    path = tree_file(tree, MANIFEST_FILE)
    if not path.is_file():
        raise InputError("not a v1.5 tree (no manifest.json; make one with fdb15 export)",
                         path=tree)
    document = load_document(path, what="manifest.json", formats=("json",)).data
    if not isinstance(document, dict) or document.get("kind") != MANIFEST_KIND \
            or not isinstance(document.get("samples"), list):
        raise InputError(f"manifest.json is not a {MANIFEST_KIND} document", path=path)
    return path, document["samples"]


def plan_jobs(tree: Path, inputs: bool = True) -> list[AsrJob]:
    """One job per file to transcribe of every eligible pair, after refusing a tree that
    already has transcripts."""
    asr_path = tree_file(tree, ASR_FILE)
    if asr_path.exists() or asr_path.is_symlink():
        raise InputError("the tree already has asr.json; fdb15 asr never overwrites "
                         "transcripts (transcribe a fresh copy of the tree)", path=asr_path)
    audio = {**OUTPUT_AUDIO, **(INPUT_AUDIO if inputs else {})}
    path, entries = _manifest(tree)
    jobs = []
    for index, entry in enumerate(entries):
        try:
            if entry["eligible"]:
                jobs += _pair_jobs(tree, entry, audio)
        except (KeyError, TypeError) as exc:
            raise InputError(f"samples[{index}] lacks or mistypes {exc}; manifest.json was "
                             "not written by fdb15 export", path=path) from None
    return jobs


def _pair_jobs(tree: Path, entry: dict[str, Any], audio: dict[str, str]) -> list[AsrJob]:
    sample_id = str(entry["sample_id"])
    folder = tree_file(tree, sample_id)
    jobs = []
    for wav, member in audio.items():
        output = folder / transcript_name(wav)
        if output.exists() or output.is_symlink():
            raise InputError(f"{output.name} already exists but the tree has no asr.json; "
                             "remove the stale transcripts first", path=output,
                             sample_id=sample_id)
        jobs.append(AsrJob(sample_id=f"{sample_id}/{output.name}", wav=folder / wav,
                           output=output, expected_sha256=str(entry["files"][wav]),
                           duration_s=float(entry["members"][member]["input_duration_s"]),
                           offset_s=0.0))
    return jobs


def transcribe_tree(tree: Path, *, workers: int, factory: Callable[[], Recogniser],
                    inputs: bool = True, executor: Executor | None = None
                    ) -> tuple[Path, dict[str, dict[str, Any]], int]:
    """Transcribe the tree (on ``executor``, by default ``workers`` local processes);
    returns asr.json's path, the transcripts by ``<scenario>/<id>/<file>`` and the
    backend's retries."""
    jobs = plan_jobs(tree, inputs)
    identity, transcripts, retries = transcribe_jobs(
        jobs, executor if executor is not None else LocalExecutor(workers), factory)
    asr_path = tree_file(tree, ASR_FILE)
    write_transcripts(jobs, transcripts, asr_path, {
        "kind": ASR_KIND, "schema_version": SCHEMA_VERSION, "speecheval_version": __version__,
        "asr": identity, "files": sorted({job.wav.name for job in jobs}),
        "cut": "none: every file is transcribed whole", "numeric": numeric_environment()})
    return asr_path, {job.sample_id: t for job, t in zip(jobs, transcripts, strict=True)}, \
        retries
