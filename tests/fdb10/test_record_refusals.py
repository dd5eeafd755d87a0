"""What ``fdb10 record`` and ``fdb15 record`` refuse, with exit 2, one line and nothing
changed: a run.json that is cut, lacks a key or was edited, given to ``--resume``; an
``--out`` that another run created between this run's check and its creation; an
``--out`` inside the dataset root."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fdb15.test_capture import tiny_dataset

from speecheval.cli import main
from speecheval.fdb.common import record
from speecheval.fdb.common.dataset import load_dataset

from .capturekit import agent_thread, short_dataset

FAST = ["--grace", "0.3", "--timeout", "3"]
NOWHERE = "ws://127.0.0.1:9/never-connected"   # the refusals come before any connection


def _record(family: str, dataset: Path, out: Path, url: str) -> int:
    return main([family, "record", "--dataset-root", str(dataset), "--agent",
                 "native-realtime", "-o", f"url={url}", "--out", str(out), *FAST])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """A finished fdb10 run and a finished fdb15 run: family -> (dataset, run)."""
    base = tmp_path_factory.mktemp("refusals")
    datasets = {"fdb10": short_dataset(base / "ds10", count=1, duration_s=0.5),
                "fdb15": tiny_dataset(base / "ds15")}
    with agent_thread() as agent:
        for family, dataset in datasets.items():
            assert _record(family, dataset, base / f"run-{family}", agent.url) == 0
    return {family: (dataset, base / f"run-{family}") for family, dataset in datasets.items()}


def _cut(text: str) -> str:
    return text[:len(text) // 2]


def _edit(change: Callable[[dict[str, Any]], None]) -> Callable[[str], str]:
    def edited(text: str) -> str:
        document = json.loads(text)
        change(document)
        return json.dumps(document)
    return edited


EDITS: list[tuple[str, Callable[[str], str], str]] = [
    ("key-less settings", _edit(lambda d: d["settings"].pop("timeout_s")),
     "run.json: settings.timeout_s is missing"),
    ("key-less agent", _edit(lambda d: d.pop("agent")), "run.json: agent.name is missing"),
    ("agent not an object", _edit(lambda d: d.update(agent=["native-realtime"])),
     "run.json: agent must be an object, got a list"),
    ("packet size as text", _edit(lambda d: d["settings"].update(packet_ms="80")),
     "run.json: settings.packet_ms must be an integer, got a string"),
    ("negative grace", _edit(lambda d: d["settings"].update(grace_s=-1)),
     "run.json: settings.grace_s must be a non-negative number, got -1"),
    ("a zero cap", _edit(lambda d: d["settings"].update(max_received_ratio=0)),
     "run.json: settings.max_received_ratio must be a positive number, got 0"),
    ("an event cap as text", _edit(lambda d: d["settings"].update(max_events_per_s="9")),
     "run.json: settings.max_events_per_s must be an integer or a number, got a string"),
    ("an option that is not text", _edit(lambda d: d["agent"]["options"].update(url=7)),
     "run.json: agent.options.url must be a string, got an integer"),
    ("empty selection", _edit(lambda d: d.update(selection=[])),
     "run.json: selection must be a non-empty list of sample ids"),
]


@pytest.mark.parametrize("family", ["fdb10", "fdb15"])
@pytest.mark.parametrize(("case", "edit", "problem"), EDITS, ids=[e[0] for e in EDITS])
def test_resume_refuses_an_edited_run_json(
        recorded: dict[str, tuple[Path, Path]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str], family: str, case: str,
        edit: Callable[[str], str], problem: str) -> None:
    run = tmp_path / "run"
    shutil.copytree(recorded[family][1], run)
    run_json = run / "run.json"
    run_json.write_text(edit(run_json.read_text()))
    before = run_json.read_bytes()
    assert main([family, "record", "--resume", str(run)]) == 2
    assert capsys.readouterr().err == f"error: {run_json}: {problem}\n"
    assert run_json.read_bytes() == before   # not even its status was touched


@pytest.mark.parametrize("family", ["fdb10", "fdb15"])
def test_resume_refuses_a_cut_run_json(recorded: dict[str, tuple[Path, Path]],
                                       tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       family: str) -> None:
    run = tmp_path / "run"
    shutil.copytree(recorded[family][1], run)
    run_json = run / "run.json"
    text = _cut(run_json.read_text())
    run_json.write_text(text)
    with pytest.raises(json.JSONDecodeError) as parsed:
        json.loads(text)
    assert main([family, "record", "--resume", str(run)]) == 2
    assert capsys.readouterr().err == \
        f"error: {run_json}: run.json is not JSON (cut or edited?): {parsed.value}\n"
    assert run_json.read_text() == text


def test_resume_refuses_a_selection_the_dataset_lacks(
        recorded: dict[str, tuple[Path, Path]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    dataset, recorded_run = recorded["fdb10"]
    run = tmp_path / "run"
    shutil.copytree(recorded_run, run)
    run_json = run / "run.json"
    run_json.write_text(_edit(lambda d: d["selection"].append("no_such_subset/1"))(
        run_json.read_text()))
    assert main(["fdb10", "record", "--resume", str(run)]) == 2
    assert capsys.readouterr().err == (
        f"error: {run_json}: run.json selects 1 sample(s) the dataset at {dataset} does not "
        "have: no_such_subset/1\n")
    assert not (run / "samples/no_such_subset/1").exists()


def test_a_run_whose_out_another_run_created_first_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=0.5)
    out = tmp_path / "run"
    winner = '{"kind": "speecheval-fdb10-run", "status": "running"}'
    checked = record.check_new_output_dir

    def checked_then_taken(path: Path) -> Path:
        """The check passes; then the other run started on the same --out creates it,
        before this one's own creation (while this one builds and probes its agent)."""
        target = checked(path)
        target.mkdir()
        (target / "run.json").write_text(winner)
        return target

    monkeypatch.setattr(record, "check_new_output_dir", checked_then_taken)
    assert _record("fdb10", dataset, out, NOWHERE) == 2
    assert capsys.readouterr().err == (
        f"error: {out}: output already exists: another run created it first; outputs are "
        "never shared or overwritten, choose a new path\n")
    assert [p.name for p in out.iterdir()] == ["run.json"]   # the winner's, untouched
    assert (out / "run.json").read_text() == winner


@pytest.mark.parametrize("family", ["fdb10", "fdb15"])
def test_an_out_inside_the_dataset_root_is_refused(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   family: str) -> None:
    dataset = (short_dataset(tmp_path / "ds", count=1, duration_s=0.5) if family == "fdb10"
               else tiny_dataset(tmp_path / "ds"))
    loader = load_dataset if family == "fdb10" else _load15
    revision = loader(dataset).revision
    out = dataset / "runs" / "first"
    assert _record(family, dataset, out, NOWHERE) == 2
    assert capsys.readouterr().err == (
        f"error: the run directory {out} is inside the dataset root {dataset}: its files "
        "would change the dataset's revision and the run could never be resumed; choose "
        "an --out outside it\n")
    assert not (dataset / "runs").exists()
    assert loader(dataset).revision == revision


def _load15(root: Path) -> Any:
    from speecheval.fdb.v15.dataset.reader import load_dataset as load15

    return load15(root)
