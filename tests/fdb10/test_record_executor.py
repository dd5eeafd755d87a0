"""``fdb10 record --jobs N`` and ``--executor ray``: sessions spread over worker processes
(or Ray tasks), each on its own event loop with its own absolute send schedule, against a
local agent in its own process over real sockets.

A real-clock recording is not deterministic (receipt times, how much of the reply falls
in the window), so what is compared byte for byte is what must not depend on where a
session ran: run.json without its status, the input sent (input.wav), each status.json
without the hashes and counts of the received audio and the trace, and in each trace the
append schedule (sequence numbers, deadlines, packet sizes). Each trace header names the
node whose monotonic clock its times are on."""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

import pytest

from speecheval.cli import main

from .capturekit import agent_process, short_dataset

FAST = ["--grace", "1.0", "--timeout", "5"]
SAMPLES = 3


def _record(dataset: Path, out: Path, url: str, *extra: str) -> None:
    assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                 "native-realtime", "-o", f"url={url}", "--out", str(out), *FAST, *extra]) == 0


def _deterministic(run: Path) -> dict[str, Any]:
    """What a run holds that must not depend on where its sessions ran."""
    document = json.loads((run / "run.json").read_text())
    found: dict[str, Any] = {"run.json": {k: v for k, v in document.items()
                                          if k not in ("status", "server")}}
    for folder in sorted(p.parent for p in (run / "samples").rglob("status.json")):
        name = folder.relative_to(run).as_posix()
        status = json.loads((folder / "status.json").read_text())
        assert status["status"] == "complete", status
        status["files"].pop("received.wav")
        status["files"].pop("trace.jsonl")
        status.pop("received_samples")
        trace = [json.loads(line) for line in (folder / "trace.jsonl").read_text().splitlines()]
        header = trace[0]
        assert header["node"] == platform.node()
        found[name] = {
            "input.wav": (folder / "input.wav").read_bytes(), "status": status,
            "header": {k: v for k, v in header.items() if k != "t0_monotonic"},
            "schedule": [(e["seq"], e["deadline_s"], e["samples"]) for e in trace
                         if e["type"] == "append"]}
    assert len(found) == 1 + SAMPLES
    return found


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return short_dataset(tmp_path_factory.mktemp("record") / "ds", count=SAMPLES,
                         duration_s=0.5)


def test_sessions_in_two_workers_record_what_one_loop_records(dataset: Path,
                                                              tmp_path: Path) -> None:
    with agent_process() as url:
        _record(dataset, tmp_path / "here", url)
        _record(dataset, tmp_path / "two", url, "--jobs", "2")
    expected = _deterministic(tmp_path / "here")
    # 0.5 s at 16 kHz = 8000 samples: 6 packets of 1280 and one of 320, due every 80 ms
    assert expected["samples/icc_backchannel/1"]["schedule"] == [
        (i, round(i * 0.08, 6), 1280 if i < 6 else 320) for i in range(7)]
    assert _deterministic(tmp_path / "two") == expected


def test_concurrency_and_jobs_are_one_or_the_other(dataset: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                 "native-realtime", "-o", "url=ws://127.0.0.1:9/", "--out",
                 str(tmp_path / "run"), "--concurrency", "2", "--jobs", "2"]) == 2
    assert "give one or the other" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_the_same_recording_on_ray(ray_cluster: str, dataset: Path, tmp_path: Path) -> None:
    with agent_process() as url:
        _record(dataset, tmp_path / "here", url)
        _record(dataset, tmp_path / "ray", url, "--executor", "ray")
    assert _deterministic(tmp_path / "ray") == _deterministic(tmp_path / "here")


def test_a_session_that_kills_its_worker_is_an_error_and_the_run_goes_on(
        dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The agent kills the worker process whenever session 2 connects: it is tried 3
    times, then recorded as an error with the reason; the others complete, the run is
    complete (exit 3) and its export marks session 2 ineligible rather than failing."""
    from speecheval.fdb.common.export import export_tree

    run = tmp_path / "run"
    assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                 "tests.fdb10.dying_transport:KillOnConnect", "-o", "url=echo/{sample_id}",
                 "--out", str(run), *FAST, "--jobs", "2"]) == 3
    assert "2 complete, 1 error, 0 skipped" in capsys.readouterr().out
    died = json.loads((run / "samples/icc_backchannel/2/status.json").read_text())
    assert (died["status"], died["reasons"]) == (
        "error", ["the worker process died while running this item "
                  "(killed by SIGKILL; 3 attempts)"])
    assert json.loads((run / "run.json").read_text())["status"] == "complete"
    export_tree([run], dataset, tmp_path / "tree")
    manifest = json.loads((tmp_path / "tree" / "manifest.json").read_text())
    eligible = {e["sample_id"]: e["eligible"] for e in manifest["samples"]}
    # (whether 1 and 3 are eligible depends on the pacing a loaded machine allowed)
    assert sorted(eligible) == [f"icc_backchannel/{i}" for i in (1, 2, 3)]
    assert eligible["icc_backchannel/2"] is False


def test_a_session_given_again_after_its_folder_was_written_is_not_recorded_again(
        dataset: Path, tmp_path: Path) -> None:
    """When a worker dies the pool's other workers are stopped too, and one may have
    written its session's folder before its result could come back: given again, that
    session returns the status it wrote and connects to nothing (here: no agent at all)."""
    from speecheval.fdb.common.capture import CaptureSettings
    from speecheval.fdb.common.dataset import load_dataset
    from speecheval.fdb.common.record import RecordRequest, dataset_sessions, record_alone

    run = tmp_path / "run"
    assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                 "tests.fdb10.dying_transport:KillOnConnect", "-o", "url=echo/{sample_id}",
                 "--out", str(run), *FAST, "--sample-id", "icc_backchannel/1"]) == 0
    before = (run / "samples/icc_backchannel/1/trace.jsonl").read_bytes()
    request = RecordRequest(dataset_root=dataset, agent="no-such-agent", options={},
                            sample_ids=("icc_backchannel/1",), settings=CaptureSettings())
    session, = dataset_sessions(load_dataset(dataset), ["icc_backchannel/1"])
    assert record_alone(run, request, session) == "complete"
    assert (run / "samples/icc_backchannel/1/trace.jsonl").read_bytes() == before
