"""``reference-export``: turn record runs into the reference tree that ``unified-score`` reads.

For every sample selected by any of the runs (shards), the export picks one capture,
plays its received audio out (:mod:`.playout`), checks it (:mod:`.eligibility`) and
writes ``<subset>/<id>/output.wav`` (16 kHz, exactly ``round(T * 16000)`` samples) plus a
copy of the dataset's annotation file. ``manifest.json`` lists every selected sample,
eligible or not, with its reasons, and adds keys a reader may ignore: where each capture
came from, the playout policy and resampler, and the pacing and boundary diagnostics.

Merging shards and attempts: a sample's captures are every attempt of it
(:mod:`.run_layout`) in every run, in the order the runs are given and then by attempt.
The latest that is ``complete`` and passes the checks is taken; when none is, the
latest that passes them, else the latest complete one, else the latest. A sample with
more than one capture records in the manifest which run and attempt was taken, why, and
what each capture's checks found (``capture.choice``), so a re-recorded sample
(``record --retry``) or a second run of it is a choice by a fixed rule, never a silent
one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ...core.audio import encode_wav
from ...core.canonical_json import dumps
from ...core.errors import InputError
from ...core.hashing import sha256_bytes, sha256_file
from ...core.output import new_output_dir
from .capture_checks import check_capture
from .dataset import INPUT_WAV, Dataset, DatasetSample, load_dataset
from .eligibility import Verdict, check_dataset
from .playout import POLICY, render_from, resampler, schedule, to_tree_rate
from .received import open_received
from .record import RUN_KIND
from .run_layout import RECEIVED_FILE, RUN_FILE, STATUS_FILE, attempt_folder, attempts
from .tree import ANNOTATION_FILES, DECLARED_SIZES, MANIFEST_KIND, SCHEMA_VERSION, SUBSET_TASKS


@dataclass(frozen=True)
class Run:
    """A record run directory as export reads it."""

    path: Path
    name: str
    document: dict[str, Any]
    sha256: str

    @property
    def selection(self) -> list[str]:
        return list(self.document["selection"])

    def captures(self, sample_id: str) -> list[Capture]:
        """Every finished attempt of ``sample_id`` in this run, in order."""
        found = []
        for attempt in attempts(self.path, sample_id):
            folder = attempt_folder(self.path, sample_id, attempt)
            status = json.loads((folder / STATUS_FILE).read_text(encoding="utf-8"))
            found.append(Capture(self, attempt, folder, dict(status)))
        return found

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "run_json_sha256": self.sha256,
                "status": self.document["status"],
                "dataset_revision": self.document["dataset"]["revision"],
                "agent": self.document["agent"]["name"], "server": self.document["server"]}


def load_run(path: Path, kind: str = RUN_KIND) -> Run:
    """The run directory ``path``; anything but a run.json of ``kind`` is bad input."""
    file = path / RUN_FILE
    if not file.is_file():
        raise InputError("not a record run directory (no run.json)", path=path)
    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"run.json is not JSON: {exc}", path=file) from exc
    if not isinstance(document, dict) or document.get("kind") != kind:
        raise InputError(f"run.json is not a {kind} document", path=file)
    return Run(path=path, name=path.resolve().name, document=document,
               sha256=sha256_file(file))


@dataclass(frozen=True)
class Capture:
    """One attempt at a session in one run: its folder and its status.json."""

    run: Run
    attempt: int
    folder: Path
    status: dict[str, Any]

    def describe(self) -> dict[str, Any]:
        return {"run": self.run.name, "attempt": self.attempt,
                "status": self.status["status"], "reasons": self.status["reasons"]}


def captures(runs: Sequence[Run], sample_id: str) -> list[Capture]:
    """Every capture of ``sample_id``: the runs in order, each run's attempts in order."""
    return [capture for run in runs for capture in run.captures(sample_id)]


def _check_run_files(folder: Path, status: dict[str, Any], sample_id: str) -> None:
    for name, digest in status.get("files", {}).items():
        if sha256_file(folder / name) != digest:
            raise InputError(f"{name} differs from the hash its status.json recorded",
                             path=folder / name, sample_id=sample_id)


def export_sample(sample: DatasetSample, found: Sequence[Capture], dataset_root: Path,
                  dest: Path) -> dict[str, Any]:
    """Write the sample's files under ``dest`` and return its manifest entry."""
    verdict = Verdict()
    duration_s = sample.duration_s
    folder = dest / sample.subset / sample.local_id
    folder.mkdir(parents=True)
    files: dict[str, str] = {}
    annotation = ANNOTATION_FILES[sample.task]
    entry: dict[str, Any] = {"sample_id": sample.sample_id, "subset": sample.subset,
                             "task": sample.task, "input_duration_s": duration_s}
    data = play_chosen(found, sample.files, duration_s, sample.sample_id, verdict, entry)
    if data is not None:
        (folder / "output.wav").write_bytes(data)
        files["output.wav"] = sha256_bytes(data)
    if annotation is not None and annotation in sample.files:
        data = (sample.folder(dataset_root) / annotation).read_bytes()
        (folder / annotation).write_bytes(data)
        files[annotation] = sha256_bytes(data)
    entry.update({"eligible": not verdict.reasons, "reasons": verdict.reasons,
                  "files": dict(sorted(files.items())),
                  "eligibility_details": verdict.details,
                  "faults_after_t": verdict.faults_after_t})
    if verdict.pacing:
        entry["pacing"] = verdict.pacing
    return entry


def play_chosen(found: Sequence[Capture], dataset_files: Mapping[str, str],
                duration_s: float, session_id: str, verdict: Verdict, entry: dict[str, Any]
                ) -> bytes | None:
    """The checked 16 kHz playout (WAV bytes) of the capture of one session that export
    takes (see the module docstring for the rule), or None.

    Every check fails into ``verdict``; ``entry`` gets the capture's source and the
    playout diagnostics, and, when there was a choice, ``capture.choice``. A run file
    that differs from its status.json is bad input.
    """
    if not found:
        verdict.fail("no_output", "no run recorded this sample")
        return None
    if len(found) == 1:
        return _play_capture(found[0], dataset_files, duration_s, session_id, verdict, entry)
    tried = []
    for capture in found:
        own_verdict, own_entry = Verdict(), dict(entry)
        data = _play_capture(capture, dataset_files, duration_s, session_id, own_verdict,
                             own_entry)
        tried.append((capture, own_verdict, own_entry, data))
    pick, why = _pick([(c.status["status"] == "complete", not v.reasons)
                       for c, v, _, _ in tried])
    capture, own_verdict, own_entry, data = tried[pick]
    verdict.reasons[:], verdict.details[:] = own_verdict.reasons, own_verdict.details
    verdict.pacing, verdict.faults_after_t = own_verdict.pacing, own_verdict.faults_after_t
    entry.update(own_entry)
    entry["capture"] = {**capture.describe(), "choice": {
        "why": why, "captures": [{**c.describe(), "eligible": not v.reasons,
                                  "check_reasons": v.reasons} for c, v, _, _ in tried]}}
    return data


def _pick(captures: Sequence[tuple[bool, bool]]) -> tuple[int, str]:
    """Which of the captures (each ``(complete, eligible)``, in order) export takes, and
    why: the latest complete and eligible one, else the latest eligible, else the latest
    complete, else the latest.

    >>> _pick([(True, True), (True, False), (False, False)])
    (0, 'the latest complete and eligible of 3 captures')
    >>> _pick([(True, False), (False, False)])
    (0, 'none of 2 captures is eligible: the latest complete one')
    """
    count = len(captures)
    rules = [((True, True), f"the latest complete and eligible of {count} captures"),
             ((False, True), f"none of {count} captures is complete and eligible: the "
                             "latest eligible one"),
             ((True, False), f"none of {count} captures is eligible: the latest complete one")]
    for (complete, eligible), why in rules:
        found = [i for i, (c, e) in enumerate(captures) if e == eligible and (c or not complete)]
        if found:
            return found[-1], why
    return count - 1, f"none of {count} captures is complete or eligible: the latest"


def _play_capture(capture: Capture, dataset_files: Mapping[str, str], duration_s: float,
                  session_id: str, verdict: Verdict, entry: dict[str, Any]) -> bytes | None:
    status = capture.status
    entry["capture"] = {"run": capture.run.name, "status": status["status"],
                        "reasons": status["reasons"]}
    check_dataset(status.get("dataset_files", {}), dataset_files, verdict)
    if status["status"] == "skipped":
        verdict.fail("no_output", "the run skipped the sample: " + "; ".join(status["reasons"]))
        return None
    _check_run_files(capture.folder, status, session_id)
    return _play(capture.folder, status, duration_s, session_id, verdict, entry)


def _play(run_folder: Path, status: dict[str, Any], duration_s: float, session_id: str,
          verdict: Verdict, entry: dict[str, Any]) -> bytes | None:
    trace = check_capture(run_folder, status, duration_s, session_id, verdict)
    rate = trace.header.get("output_rate")
    if "no_output" in verdict.reasons:
        return None
    with open_received(run_folder / RECEIVED_FILE, session_id) as received:
        if "output_rate" in verdict.reasons:
            return None
        if received.rate != rate:
            verdict.fail("output_rate", f"received.wav is at {received.rate} Hz, the trace "
                         f"declares {rate} Hz")
            return None
        assert isinstance(rate, int)
        playout = schedule(trace.arrivals, rate, duration_s)
        audio = to_tree_rate(render_from(playout, received.read), rate, duration_s)
    first = playout.placed[0].start / rate if playout.placed else None
    entry["playout"] = {"output_rate": rate, "resampler": resampler(rate),
                        "received_s": received.n_samples / rate,
                        "dropped_s": playout.dropped_s, "after_t_s": playout.after_t_s,
                        "first_audio_s": first}
    return encode_wav(audio, 16_000)


def _subset_order(sample_id: str) -> tuple[int, int, int | str]:
    """Dataset order; a sample id of no v1.0 subset is bad input."""
    subset, _, local_id = sample_id.partition("/")
    if subset not in SUBSET_TASKS:
        raise InputError(f"a run selected {sample_id}, not a v1.0 sample")
    key: tuple[int, int | str] = (0, int(local_id)) if local_id.isdecimal() else (1, local_id)
    return (list(DECLARED_SIZES).index(subset), *key)


def capture_part(runs: Sequence[Run]) -> dict[str, Any]:
    """The manifest's ``capture`` record: the runs exported, their dataset labels, the
    playout policy and the pacing tolerance."""
    return {"sources": [run.describe() for run in runs],
            "dataset_labels": sorted({str(run.document["dataset"].get("label"))
                                      for run in runs if run.document["dataset"].get("label")}),
            "playout_policy": POLICY, "pacing_tolerance_ms": 80}


def export_tree(run_paths: Sequence[Path], dataset_root: Path, out: Path) -> dict[str, int]:
    """Write the reference tree for ``run_paths`` into the new directory ``out``."""
    runs = load_runs(run_paths)
    dataset: Dataset = load_dataset(dataset_root)
    by_id = dataset.by_id()
    selected, unlisted = selection(runs, by_id, _subset_order)
    entries = []
    with new_output_dir(out) as staging:
        for sample_id in selected:
            entries.append(export_sample(by_id[sample_id], captures(runs, sample_id),
                                         dataset_root, staging))
        counts = write_manifest(staging, MANIFEST_KIND, dataset.revision, DECLARED_SIZES, runs,
                                entries, unlisted,
                                {"input_audio": input_audio(dataset_root,
                                                            [by_id[s] for s in selected])})
    return {"samples": len(entries), **counts}


def input_audio(dataset_root: Path, samples: Sequence[DatasetSample]) -> dict[str, Any]:
    """The manifest's ``input_audio`` record: where each sample's input is in the dataset
    and its SHA-256, so a report can play and draw what the user said."""
    return {"dataset_root": str(dataset_root.resolve()),
            "samples": {s.sample_id: {"path": f"{s.subset}/{s.local_id}/{INPUT_WAV}",
                                      "sha256": s.files[INPUT_WAV]}
                        for s in samples if INPUT_WAV in s.files}}


def load_runs(run_paths: Sequence[Path], kind: str = RUN_KIND) -> list[Run]:
    """The runs to export together; each is named by its directory, so names must differ."""
    runs = [load_run(path, kind) for path in run_paths]
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        raise InputError("two runs share a directory name; each source is named by it")
    return runs


class _Supplied(Protocol):
    """What the selection needs of a dataset sample (v1.0's or v1.5's)."""

    @property
    def usable(self) -> bool: ...

    @property
    def problems(self) -> tuple[str, ...]: ...


def selection(runs: Sequence[Run], by_id: Mapping[str, _Supplied],
              order: Callable[[str], Any]) -> tuple[list[str], list[dict[str, Any]]]:
    """The ids any run selected that the dataset can supply, in ``order``, and the others.

    A sample the dataset cannot supply has no T, so the tree cannot list it; it is kept
    under ``unlisted`` with the dataset's reasons instead of being dropped silently.
    """
    everything = sorted({sid for run in runs for sid in run.selection}, key=order)
    selected = [sid for sid in everything if sid in by_id and by_id[sid].usable]
    unlisted = [{"sample_id": sid, "reasons": list(by_id[sid].problems) if sid in by_id
                 else ["not in the dataset"]} for sid in everything if sid not in selected]
    return selected, unlisted


def write_manifest(staging: Path, kind: str, revision: str, declared: Mapping[str, int],
                   runs: Sequence[Run], entries: Sequence[dict[str, Any]],
                   unlisted: Sequence[dict[str, Any]],
                   extra: Mapping[str, Any] | None = None) -> dict[str, int]:
    """Write ``manifest.json`` into the staged tree (``extra``: more top-level keys a tree
    reader may ignore); returns the eligible, ineligible and unlisted counts."""
    manifest = {
        "kind": kind, "schema_version": SCHEMA_VERSION,
        "dataset": {"revision": revision, "declared": dict(declared)},
        # Keys a tree reader may ignore stay at the top level (docs/fdb10-tree.md).
        "capture": capture_part(runs),
        "samples": list(entries),
        "unlisted": list(unlisted),
        **(extra or {}),
    }
    (staging / "manifest.json").write_text(dumps(manifest), encoding="utf-8")
    eligible = sum(entry["eligible"] for entry in entries)
    return {"eligible": eligible, "ineligible": len(entries) - eligible,
            "unlisted": len(unlisted)}
