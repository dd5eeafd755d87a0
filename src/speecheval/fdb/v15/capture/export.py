"""``fdb15 export``: turn ``fdb15 record`` runs into a v1.5 tree the scorers read.

Each member of a pair is played out and checked exactly as v1.0's ``reference-export``
does (:func:`...common.export.play_chosen`: the FIFO playout, soxr to 16 kHz, the length
``round(T * 16000)`` of the member's own input, the reason codes of
:mod:`...common.eligibility`; of several captures of a member, in several runs or
attempts, the latest eligible one, the choice recorded). A pair is eligible only when
both members are; then its folder holds what the official v1.5 scripts read
(``evaluation/README.md``)::

    TREE/<scenario>/<id>/metadata.json      copied from the dataset
    TREE/<scenario>/<id>/input.wav          copied (get_timing.py reads it)
    TREE/<scenario>/<id>/clean_input.wav    copied
    TREE/<scenario>/<id>/output.wav         the playout of the session that heard input.wav
    TREE/<scenario>/<id>/clean_output.wav   the playout of the clean_input.wav session
    TREE/manifest.json                      every selected pair, eligible or not

An ineligible pair has no folder (every folder of the tree is a scorable trial, as
``fdb15 score`` and the official scripts expect); ``manifest.json`` lists it with the
union of its members' reason codes under ``reasons`` and each member's own reasons,
sentences, capture source and playout diagnostics under ``members``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ....core.audio import audio_info
from ....core.errors import InputError
from ....core.hashing import sha256_bytes
from ....core.output import new_output_dir
from ...common.dataset import sample_id_order
from ...common.eligibility import Verdict
from ...common.export import Run, captures, load_runs, play_chosen, selection, write_manifest
from ..dataset.layout import DECLARED_SIZES, SAMPLE_FILES
from ..dataset.reader import DatasetSample, load_dataset
from .record import MEMBERS, RUN_KIND, session_id

MANIFEST_KIND = "fdb-v1.5-tree"
SCHEMA_VERSION = 1

OUTPUT_FILES: dict[str, str] = {"input": "output.wav", "clean_input": "clean_output.wav"}
"""The tree file each member's playout is written to (the official names)."""


def _order(sample_id: str) -> tuple[int, tuple[int, int | str]]:
    """Dataset order; a sample id of no v1.5 scenario is bad input."""
    scenario, _, local_id = sample_id.partition("/")
    if scenario not in DECLARED_SIZES:
        raise InputError(f"a run selected {sample_id}, not a v1.5 sample")
    return list(DECLARED_SIZES).index(scenario), sample_id_order(local_id)


def _member(sample: DatasetSample, member: str, runs: Sequence[Run], dataset_root: Path
            ) -> tuple[dict[str, Any], bytes | None]:
    """One member's manifest entry and its playout (None when it is not eligible)."""
    input_path = dataset_root / sample.scenario / sample.local_id / MEMBERS[member]
    info = audio_info(input_path, sample_id=sample.sample_id)
    duration_s = info.n_samples / info.rate
    sid = session_id(sample.sample_id, member)
    verdict = Verdict()
    entry: dict[str, Any] = {"session_id": sid, "input": MEMBERS[member],
                             "output": OUTPUT_FILES[member], "input_duration_s": duration_s}
    data = play_chosen(captures(runs, sid), sample.files, duration_s, sid, verdict, entry)
    entry.update({"eligible": not verdict.reasons, "reasons": verdict.reasons,
                  "eligibility_details": verdict.details,
                  "faults_after_t": verdict.faults_after_t})
    if verdict.pacing:
        entry["pacing"] = verdict.pacing
    return entry, data if not verdict.reasons else None


def export_pair(sample: DatasetSample, runs: Sequence[Run], dataset_root: Path,
                dest: Path) -> dict[str, Any]:
    """Check both members; write the pair's folder under ``dest`` only if both pass."""
    members: dict[str, dict[str, Any]] = {}
    playouts: dict[str, bytes | None] = {}
    for member in MEMBERS:
        members[member], playouts[member] = _member(sample, member, runs, dataset_root)
    reasons: list[str] = []
    for entry in members.values():
        reasons += [code for code in entry["reasons"] if code not in reasons]
    files: dict[str, str] = {}
    if not reasons:
        folder = dest / sample.scenario / sample.local_id
        folder.mkdir(parents=True)
        copies = {name: (dataset_root / sample.scenario / sample.local_id / name).read_bytes()
                  for name in SAMPLE_FILES}
        outputs = {OUTPUT_FILES[m]: data for m, data in playouts.items() if data is not None}
        for name, data in {**copies, **outputs}.items():
            (folder / name).write_bytes(data)
            files[name] = sha256_bytes(data)
    return {"sample_id": sample.sample_id, "scenario": sample.scenario,
            "eligible": not reasons, "reasons": reasons, "members": members,
            "files": dict(sorted(files.items()))}


def export_tree(run_paths: Sequence[Path], dataset_root: Path, out: Path) -> dict[str, int]:
    """Write the v1.5 tree of ``run_paths`` (shards of one dataset) into the new ``out``."""
    runs = load_runs(run_paths, RUN_KIND)
    dataset = load_dataset(dataset_root)
    by_id = {sample.sample_id: sample for sample in dataset.samples}
    selected, unlisted = selection(runs, by_id, _order)
    with new_output_dir(out) as staging:
        entries = [export_pair(by_id[sid], runs, dataset_root, staging) for sid in selected]
        counts = write_manifest(staging, MANIFEST_KIND, dataset.revision, DECLARED_SIZES, runs,
                                entries, unlisted)
    return {"pairs": len(entries), **counts}
