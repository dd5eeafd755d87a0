"""``fdb15 record``: capture a system on a v1.5 dataset, each sample as two sessions.

A v1.5 trial is a pair: the system hears ``input.wav`` (with the overlap) in one session
and ``clean_input.wav`` (without it) in another, independent session, so the clean reply
is a baseline the overlap could not have touched. The run is v1.0's run directory
(:mod:`...common.record`: absolute 80 ms send schedule, staged folders, resume,
concurrency, faults recorded and the run going on) with one folder per session::

    RUN/run.json                                   kind speecheval-fdb15-run
    RUN/samples/<scenario>/<id>/input/...          the session that heard input.wav
    RUN/samples/<scenario>/<id>/clean_input/...    the session that heard clean_input.wav

Each session folder holds v1.0's four files (input.wav as sent, received.wav,
trace.jsonl, status.json); its status.json also names the sample and the member. The
two members of a pair are scheduled like any two samples: with ``--concurrency`` above
1 they may run at the same time, each on its own connection. ``--resume --retry`` records
a new attempt of each failed or ineligible session (one member, not the pair), under
that session's ``attempts/<N>/``; export takes the latest eligible attempt of each member.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ....core.audio import audio_info
from ....core.errors import InputError
from ....core.executor import Executor
from ...common.record import (
    RecordRequest,
    Session,
    check_agent,
    check_revision,
    check_selection,
    execute,
    resume_request,
    start_sessions,
)
from ..dataset.layout import CLEAN_INPUT_WAV, DECLARED_SIZES, INPUT_WAV
from ..dataset.reader import Dataset, DatasetSample, load_dataset

RUN_KIND = "speecheval-fdb15-run"

MEMBERS: dict[str, str] = {"input": INPUT_WAV, "clean_input": CLEAN_INPUT_WAV}
"""The two sessions of a pair: member name -> the dataset file it plays."""


def session_id(sample_id: str, member: str) -> str:
    """``user_interruption/3`` and ``clean_input`` -> ``user_interruption/3/clean_input``."""
    return f"{sample_id}/{member}"


def pair_sessions(sample: DatasetSample, root: Path) -> list[Session]:
    """The two sessions of one sample (both skipped with its problems if it has any)."""
    sessions = []
    for member, name in MEMBERS.items():
        fields = {"sample_id": sample.sample_id, "scenario": sample.scenario,
                  "member": member, "dataset_files": dict(sorted(sample.files.items()))}
        sid = session_id(sample.sample_id, member)
        if not sample.usable:
            sessions.append(Session(sid, None, None, None, sample.problems, fields))
            continue
        path = root / sample.scenario / sample.local_id / name
        info = audio_info(path, sample_id=sample.sample_id)
        sessions.append(Session(sid, path, info.rate, info.n_samples / info.rate, (), fields))
    return sessions


def dataset_sessions(dataset: Dataset, sample_ids: Sequence[str]) -> list[Session]:
    by_id = {sample.sample_id: sample for sample in dataset.samples}
    return [session for sid in sample_ids for session in pair_sessions(by_id[sid], dataset.root)]


def select(dataset: Dataset, *, scenarios: Sequence[str] = (), sample_ids: Sequence[str] = (),
           max_per_scenario: int | None = None) -> list[str]:
    """The sample ids a run covers, in dataset order; unknown names are InputErrors.

    As v1.0's selection: absent samples are left out unless named by ``sample_ids``; a
    present sample with problems stays in, for the run to list it as skipped.
    """
    for scenario in scenarios:
        if scenario not in DECLARED_SIZES:
            raise InputError(f"unknown scenario {scenario!r}; the v1.5 scenarios are "
                             f"{', '.join(DECLARED_SIZES)}")
    known = {sample.sample_id for sample in dataset.samples}
    for sid in sample_ids:
        if sid not in known:
            raise InputError(f"--sample-id {sid}: no such sample in the dataset",
                             path=dataset.root)
    chosen: list[str] = []
    taken: dict[str, int] = {}
    for sample in dataset.samples:
        if sample_ids:
            if sample.sample_id not in sample_ids:
                continue
        elif sample.absent or (scenarios and sample.scenario not in scenarios):
            continue
        if max_per_scenario is not None and taken.get(sample.scenario, 0) >= max_per_scenario:
            continue
        taken[sample.scenario] = taken.get(sample.scenario, 0) + 1
        chosen.append(sample.sample_id)
    return chosen


def dataset_part(dataset: Dataset) -> dict[str, Any]:
    """The dataset part of run.json: root, revision, sizes, rates, problems, file hashes."""
    return {"root": str(dataset.root), "revision": dataset.revision,
            "declared": dict(DECLARED_SIZES), "counts": dataset.counts(),
            "input_rates": dataset.rates(),
            "problems": {s.sample_id: list(s.problems) for s in dataset.samples
                         if s.problems and not s.absent},
            "absent": [s.sample_id for s in dataset.samples if s.absent],
            "files": {f"{s.sample_id}/{name}": digest for s in dataset.samples
                      for name, digest in sorted(s.files.items())}}


def start_run(run: Path, request: RecordRequest, dataset: Dataset,
              executor: Executor | None = None) -> dict[str, Any]:
    """A new run over the pairs of ``request.sample_ids``; returns session counts."""
    return start_sessions(run, request, RUN_KIND, dataset_part(dataset),
                          dataset_sessions(dataset, request.sample_ids), executor)


def resume_run(run: Path, overrides: Mapping[str, str], executor: Executor | None = None,
               retry: str | None = None) -> dict[str, Any]:
    """Finish the sessions of ``run`` that have no folder (and, with ``retry``, record
    again each session it names, one member of a pair at a time: the members are
    independent sessions); the dataset must be unchanged."""
    request = resume_request(run, overrides, RUN_KIND)
    dataset = load_dataset(request.dataset_root)
    check_revision(run, request, dataset.revision)
    check_selection(run, request, {sample.sample_id for sample in dataset.samples})
    check_agent(request.agent, request.options, session_id(request.sample_ids[0], "input"),
                request.concurrency)
    return execute(run, request, dataset_sessions(dataset, request.sample_ids), executor,
                   retry)
