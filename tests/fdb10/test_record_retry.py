"""fdb10 record --resume --retry over real sockets: only the samples export would not
take are recorded again, every earlier attempt stays on disk byte for byte, export takes
the new attempt and says so, and the last line of record counts what export will take."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from speecheval.cli import main

from .capturekit import Trace, agent_thread, edit_trace, late_appends, read_trace, short_dataset

FAST = ["--grace", "0.3", "--timeout", "3"]
SAMPLES = [f"icc_backchannel/{i}" for i in (1, 2, 3)]
LATE = "icc_backchannel/2"


def _late_packet(trace: Trace) -> Trace:
    """Packet 4 started 120 ms after its deadline: what a stalled sender leaves."""
    for event in trace:
        if event["type"] == "append" and event["seq"] == 4:
            event["start_s"] = event["end_s"] = round(event["deadline_s"] + 0.12, 6)
    return trace


def _files(run: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in (run / "samples").rglob("*") if p.is_file()}


def _last_line(out: str) -> str:
    return out.strip().splitlines()[-1]


def _on_time(run: Path, sample_id: str, attempt: str = "") -> bool:
    """Whether a capture kept the 80 ms schedule, read from its own trace (the local
    agent neither faults nor changes rate, so this is export's whole verdict)."""
    folder = f"{sample_id}/attempts/{attempt}" if attempt else sample_id
    return not late_appends(read_trace(run, folder))


def test_retry_ineligible_records_only_the_late_sample_and_export_takes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = short_dataset(tmp_path / "ds", count=3, duration_s=1.0)
    run = tmp_path / "run"
    with agent_thread() as agent:
        assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                     "native-realtime", "-o", f"url={agent.url}", "--out", str(run),
                     *FAST]) == 0
        first = capsys.readouterr().out
        assert len(agent.log.paths) == 3
        on_time = sum(_on_time(run, sid) for sid in SAMPLES)
        # the end line counts the complete samples that kept the schedule, by their traces
        assert _last_line(first) == (
            f"{on_time} of 3 complete pass the pacing, window and rate checks"
            + ("" if on_time == 3 else
               f"; {3 - on_time} do not (input_pacing {3 - on_time})"))
        edit_trace(run, LATE, _late_packet)
        wanted = [sid for sid in SAMPLES if not _on_time(run, sid)]
        assert LATE in wanted
        before = _files(run)

        # --retry failed: nothing failed, so nothing is recorded
        assert main(["fdb10", "record", "--resume", str(run), "--retry", "failed"]) == 0
        assert _files(run) == before and len(agent.log.paths) == 3
        capsys.readouterr()

        assert main(["fdb10", "record", "--resume", str(run), "--retry", "ineligible"]) == 0
        out = capsys.readouterr().out
        assert len(agent.log.paths) == 3 + len(wanted)
    # every earlier file is as it was; the retried samples have attempt 2 beside them
    assert {p: p.read_bytes() for p in before} == before
    for sid in SAMPLES:
        attempts = run / "samples" / sid / "attempts"
        listed = sorted(p.name for p in attempts.iterdir()) if attempts.exists() else []
        assert listed == (["2"] if sid in wanted else [])
    status: dict[str, Any] = json.loads(
        (run / "samples" / LATE / "attempts" / "2" / "status.json").read_text())
    assert status["status"] == "complete" and status["sample_id"] == LATE
    retried_on_time = _on_time(run, LATE, "2")
    now_on_time = sum(_on_time(run, sid, "2" if sid in wanted else "") for sid in SAMPLES)
    assert _last_line(out).startswith(f"{now_on_time} of 3 complete pass")

    tree = tmp_path / "tree"
    assert main(["fdb10", "reference-export", "--run", str(run), "--dataset-root",
                 str(dataset), "--out", str(tree)]) == 0
    entries = {e["sample_id"]: e for e in json.loads((tree / "manifest.json").read_text())[
        "samples"]}
    chosen = entries[LATE]["capture"]
    # attempt 2 is taken: eligible if it kept the schedule, else still the latest complete
    assert (chosen["run"], chosen["attempt"]) == ("run", 2)
    assert chosen["choice"]["why"] == ("the latest complete and eligible of 2 captures"
                                       if retried_on_time else
                                       "none of 2 captures is eligible: the latest complete one")
    assert [(c["attempt"], c["eligible"]) for c in chosen["choice"]["captures"]] == \
        [(1, False), (2, retried_on_time)]
    assert entries[LATE]["eligible"] is retried_on_time


def test_retry_failed_records_the_errors_again(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=1.0)
    run = tmp_path / "run"
    with agent_thread(options={"fault": "error", "fault_after_ms": "160"}) as faulty:
        assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                     "native-realtime", "-o", f"url={faulty.url}", "--out", str(run),
                     *FAST]) == 3
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-2].endswith(": 0 complete, 2 error, 0 skipped")
    assert out[-1] == "0 of 0 complete pass the pacing, window and rate checks"
    with agent_thread() as healthy:
        # the agent moved: its new URL is given with -o, as for any resume
        assert main(["fdb10", "record", "--resume", str(run), "--retry", "failed",
                     "-o", f"url={healthy.url}"]) == 0
        assert len(healthy.log.paths) == 2
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-2].endswith(": 2 complete, 0 error, 0 skipped")
    for sid in SAMPLES[:2]:
        assert json.loads((run / "samples" / sid / "status.json").read_text())["status"] == \
            "error"
        assert json.loads((run / "samples" / sid / "attempts" / "2" / "status.json"
                           ).read_text())["status"] == "complete"


def test_retry_needs_resume(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=1.0)
    code = main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                 "native-realtime", "-o", "url=ws://127.0.0.1:9", "--out",
                 str(tmp_path / "run"), "--retry", "failed"])
    assert code == 2 and not (tmp_path / "run").exists()
