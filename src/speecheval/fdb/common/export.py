"""``reference-export``: turn record runs into the reference tree that ``unified-score`` reads.

For every sample selected by any of the runs (shards), the export picks one capture,
plays its received audio out (:mod:`.playout`), checks it (:mod:`.eligibility`) and
writes ``<subset>/<id>/output.wav`` (16 kHz, exactly ``round(T * 16000)`` samples) plus a
copy of the dataset's annotation file. ``manifest.json`` lists every selected sample,
eligible or not, with its reasons, and adds keys a reader may ignore: where each capture
came from, the playout policy and resampler, and the pacing and boundary diagnostics.

Merging shards: a sample recorded ``complete`` in one run is taken from it; a sample
with no complete capture is taken from the last run that recorded it (so a later run
replaces an incomplete earlier capture); two complete captures of one sample are an
error, because choosing between them would choose a result.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ...core.audio import encode_wav
from ...core.canonical_json import dumps
from ...core.errors import InputError
from ...core.hashing import sha256_bytes, sha256_file
from ...core.output import new_output_dir
from .dataset import INPUT_WAV, Dataset, DatasetSample, load_dataset
from .eligibility import Verdict, check_dataset, check_pacing, check_rate, check_window
from .playout import POLICY, Arrival, render_from, resampler, schedule, to_tree_rate
from .received import open_received
from .record import RECEIVED_FILE, RUN_FILE, RUN_KIND, STATUS_FILE, TRACE_FILE, sample_folder
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

    def status(self, sample_id: str) -> dict[str, Any] | None:
        path = sample_folder(self.path, sample_id) / STATUS_FILE
        if not path.is_file():
            return None
        return dict(json.loads(path.read_text(encoding="utf-8")))

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
class Chosen:
    run: Run
    status: dict[str, Any]


def choose(runs: Sequence[Run], sample_id: str) -> Chosen | None:
    """The capture of ``sample_id`` to export (see the module docstring for the rule)."""
    captures = [(run, status) for run in runs
                if (status := run.status(sample_id)) is not None]
    complete = [(run, status) for run, status in captures if status["status"] == "complete"]
    if len(complete) > 1:
        names = " and ".join(run.name for run, _ in complete)
        raise InputError(f"two complete captures, in {names}; export one of them",
                         sample_id=sample_id)
    if complete:
        return Chosen(*complete[0])
    return Chosen(*captures[-1]) if captures else None


@dataclass
class _Trace:
    """What export needs of a trace.jsonl, gathered line by line: a flooded capture's
    trace is long, and its audio events are kept only as their playout arrivals."""

    header: dict[str, Any]
    appends: list[dict[str, Any]]
    faults: list[dict[str, Any]]
    rates: list[Any]
    arrivals: list[Arrival]


def _read_trace(path: Path, sample_id: str) -> _Trace:
    trace = _Trace({}, [], [], [], [])
    try:
        with path.open(encoding="utf-8", newline="") as lines:
            for number, line in enumerate(lines):
                event = json.loads(line)
                kind = event["type"]
                if number == 0 and kind == "header":
                    trace.header = event
                elif kind == "append":
                    trace.appends.append(event)
                elif kind == "fault":
                    trace.faults.append(event)
                if kind == "audio":
                    trace.rates.append(event.get("rate"))
                    trace.arrivals.append(Arrival(float(event["t_s"]), int(event["offset"]),
                                                  int(event["samples"])))
                elif kind in ("clear", "speech_started"):
                    trace.arrivals.append(Arrival(float(event["t_s"]), drop=True))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read the trace: {exc}", path=path,
                         sample_id=sample_id) from exc
    return trace


def _check_run_files(folder: Path, status: dict[str, Any], sample_id: str) -> None:
    for name, digest in status.get("files", {}).items():
        if sha256_file(folder / name) != digest:
            raise InputError(f"{name} differs from the hash its status.json recorded",
                             path=folder / name, sample_id=sample_id)


def export_sample(sample: DatasetSample, chosen: Chosen | None, dataset_root: Path,
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
    data = play_chosen(chosen, sample.files, duration_s, sample.sample_id, verdict, entry)
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


def play_chosen(chosen: Chosen | None, dataset_files: Mapping[str, str], duration_s: float,
                session_id: str, verdict: Verdict, entry: dict[str, Any]) -> bytes | None:
    """The checked 16 kHz playout (WAV bytes) of one session's chosen capture, or None.

    Every check fails into ``verdict``; ``entry`` gets the capture's source and the
    playout diagnostics. A run file that differs from its status.json is bad input.
    """
    if chosen is None:
        verdict.fail("no_output", "no run recorded this sample")
        return None
    run_folder = sample_folder(chosen.run.path, session_id)
    status = chosen.status
    entry["capture"] = {"run": chosen.run.name, "status": status["status"],
                        "reasons": status["reasons"]}
    check_dataset(status.get("dataset_files", {}), dataset_files, verdict)
    if status["status"] == "skipped":
        verdict.fail("no_output", "the run skipped the sample: " + "; ".join(status["reasons"]))
        return None
    _check_run_files(run_folder, status, session_id)
    return _play(run_folder, status, duration_s, session_id, verdict, entry)


def _play(run_folder: Path, status: dict[str, Any], duration_s: float, session_id: str,
          verdict: Verdict, entry: dict[str, Any]) -> bytes | None:
    trace = _read_trace(run_folder / TRACE_FILE, session_id)
    rate = trace.header.get("output_rate")
    packet_ms = int(trace.header.get("packet_ms", 80))
    input_rate = int(status.get("input_rate") or 0)
    per_packet = input_rate * packet_ms // 1000 if input_rate else 1
    expected = math.ceil(int(status.get("input_samples") or 0) / per_packet)
    check_pacing(trace.appends, expected, verdict)
    check_window(trace.faults, duration_s, verdict)
    check_rate(rate, trace.rates, verdict)
    if not int(status.get("received_samples") or 0):
        verdict.fail("no_output", "no audio was received")
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
    chosen = {sid: choose(runs, sid) for sid in selected}
    entries = []
    with new_output_dir(out) as staging:
        for sample_id in selected:
            entries.append(export_sample(by_id[sample_id], chosen[sample_id], dataset_root,
                                         staging))
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
