"""fdb10 record over real sockets against the local agents: schedule, receipts, files,
faults, bad input, {sample_id} routing, and kill -9 followed by --resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from speecheval.cli import main
from speecheval.core.audio import read_mono
from speecheval.core.hashing import sha256_file
from speecheval.fdb.common.dataset import load_dataset
from speecheval.fdb.common.export import export_tree

from .capturekit import agent_thread, short_dataset

FAST = ["--grace", "0.3", "--timeout", "3"]


def _status(run: Path, sample_id: str) -> dict[str, Any]:
    return json.loads((run / "samples" / sample_id / "status.json").read_text())


def _trace(run: Path, sample_id: str) -> list[dict[str, Any]]:
    lines = (run / "samples" / sample_id / "trace.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _record(dataset: Path, out: Path, url: str, *extra: str, agent: str = "native-realtime"
            ) -> int:
    return main(["fdb10", "record", "--dataset-root", str(dataset), "--agent", agent,
                 "-o", f"url={url}", "--out", str(out), *FAST, *extra])


def test_records_the_schedule_receipts_and_audio(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=1.0)
    run = tmp_path / "run"
    with agent_thread() as agent:
        assert _record(dataset, run, agent.url, "--concurrency", "2",
                       "--server-revision", "rev-7", "--model", "m1",
                       "--dataset-label", "ds-label") == 0
    document = json.loads((run / "run.json").read_text())
    assert document["status"] == "complete"
    assert document["server"]["revision"] == "rev-7" and document["server"]["model"] == "m1"
    assert document["server"]["probe"]["ok"] is False   # the local agent has no /v1/models
    assert document["dataset"]["revision"] == load_dataset(dataset).revision
    assert document["dataset"]["label"] == "ds-label"
    assert document["selection"] == ["icc_backchannel/1", "icc_backchannel/2"]
    assert document["settings"] == {"packet_ms": 80, "grace_s": 0.3, "timeout_s": 3.0,
                                    "max_received_ratio": 10.0, "max_events_per_s": 1000.0,
                                    "concurrency": 2}
    for sample_id in document["selection"]:
        status = _status(run, sample_id)
        assert status["status"] == "complete" and status["reasons"] == []
        # the exact PCM sent is the dataset's own PCM16 file, byte for byte
        assert status["files"]["input.wav"] == sha256_file(dataset / sample_id / "input.wav")
        trace = _trace(run, sample_id)
        appends = [e for e in trace if e["type"] == "append"]
        # 1.0 s at 16 kHz = 16000 samples = 12 packets of 1280 and one of 640
        assert [a["samples"] for a in appends] == [1280] * 12 + [640]
        assert [a["deadline_s"] for a in appends] == [round(i * 0.08, 6) for i in range(13)]
        assert all(a["deadline_s"] <= a["start_s"] <= a["end_s"] for a in appends)
        assert [e["type"] for e in trace].count("input_end") == 1
        audio = [e for e in trace if e["type"] == "audio"]
        assert audio and [e["offset"] for e in audio] == list(
            np.cumsum([0] + [e["samples"] for e in audio[:-1]]))
        received = read_mono(run / "samples" / sample_id / "received.wav")
        assert received.rate == 16000
        assert received.n_samples == sum(e["samples"] for e in audio) == \
            status["received_samples"]
        assert trace[0]["type"] == "header" and trace[0]["rate"] == 16000


def test_sample_id_is_substituted_in_the_url(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=0.5)
    with agent_thread() as agent:
        url = agent.url + "/{sample_id}"
        assert _record(dataset, tmp_path / "run", url) == 0
        assert sorted(agent.log.paths) == ["/v1/realtime/icc_backchannel/1",
                                           "/v1/realtime/icc_backchannel/2"]


KIND = {"pcm-websocket": "turn", "openai-realtime": "turn", "native-realtime": "duplex",
        "vllm-omni-duplex": "duplex"}
PROTOCOL_OPTIONS = {
    "pcm-websocket": [],
    "openai-realtime": ["-o", "api_key_env=", "-o", "transcription_model="],
    # the native agent's wrong rate shows only when the client asks for a rate
    "native-realtime": ["-o", "output_rate=16000"],
    "vllm-omni-duplex": [],
}


@pytest.mark.parametrize("protocol", sorted(KIND))
@pytest.mark.parametrize(("fault", "reason"), [
    ("disconnect", "dropped the connection"),
    ("malformed", "malformed JSON from agent"),
    ("error", "agent error event"),
    # the agent's library reads on until 16 packets are queued (0.24 + 16 * 0.08 s), then a
    # keepalive ping (0.2 s interval, 0.3 s timeout) goes unanswered: inside the 2.5 s
    ("stall", "agent stalled"),
    ("wrong-rate", "wrong sample rate"),
])
def test_every_fault_mode_is_recorded_and_the_run_goes_on(tmp_path: Path, protocol: str,
                                                          fault: str, reason: str) -> None:
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=2.5)
    run = tmp_path / "run"
    options = {"fault": fault, "fault_after_ms": "240"}
    with agent_thread(KIND[protocol], protocol, options) as agent:
        code = main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                     protocol, "-o", f"url={agent.url}", "-o", "ping_interval_s=0.2",
                     "-o", "ping_timeout_s=0.3", *PROTOCOL_OPTIONS[protocol],
                     "--out", str(run), "--grace", "0.3", "--timeout", "1",
                     "--concurrency", "2"])
    assert code == 3
    assert json.loads((run / "run.json").read_text())["status"] == "complete"
    for sample_id in ("icc_backchannel/1", "icc_backchannel/2"):
        status = _status(run, sample_id)
        assert status["status"] == "error"
        assert reason in status["reasons"][0], status["reasons"]
        faults = [e for e in _trace(run, sample_id) if e["type"] == "fault"]
        assert faults and faults[0]["t_s"] < 2.5   # inside the window [0, T]


def test_a_silent_agent_is_a_no_audio_error(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=0.5)
    run = tmp_path / "run"
    # the turn agent answers only after 300 ms of silence plus 200 ms; the input is 0.5 s
    with agent_thread("turn", "pcm-websocket", {"endpoint_silence_ms": "5000"}) as agent:
        assert _record(dataset, run, agent.url, agent="pcm-websocket") == 3
    assert _status(run, "icc_backchannel/1")["reasons"] == ["no audio received from the agent"]


def test_a_refused_connection_is_a_fault_not_a_crash(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=0.5)
    run = tmp_path / "run"
    assert _record(dataset, run, "ws://127.0.0.1:9/v1/realtime") == 3
    status = _status(run, "icc_backchannel/1")
    assert status["status"] == "error" and status["reasons"][0]


def test_dataset_problems_are_skipped_with_reasons_not_faults(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=0.5)
    (dataset / "icc_backchannel/2/input.wav").unlink()
    run = tmp_path / "run"
    with agent_thread() as agent:
        assert _record(dataset, run, agent.url) == 0
    assert _status(run, "icc_backchannel/2")["status"] == "skipped"
    assert _status(run, "icc_backchannel/2")["reasons"] == ["input.wav is missing"]


@pytest.mark.parametrize(("args", "message"), [
    (["--dataset-root", "{tmp}/nope"], "dataset root is not a directory"),
    (["--subset", "nope"], "unknown subset 'nope'"),
    (["-o", "colour=blue"], "colour"),
    (["--agent", "nosuchagent"], "unknown agent"),
    (["--sample-id", "icc_backchannel/999"], "no such sample"),
])
def test_bad_input_exits_2_before_writing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          args: list[str], message: str) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=0.5)
    run = tmp_path / "run"
    base = {"--dataset-root": str(dataset), "--agent": "native-realtime"}
    argv = ["fdb10", "record", "-o", "url=ws://127.0.0.1:9/x", "--out", str(run)]
    given = dict(zip(args[::2], args[1::2], strict=True))
    for key, value in {**base, **given}.items():
        argv += [key, value.replace("{tmp}", str(tmp_path))]
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not run.exists()


def _tree_bytes(run: Path) -> dict[str, str]:
    return {str(p.relative_to(run)): sha256_file(p)
            for p in sorted((run / "samples").rglob("*")) if p.is_file()}


def test_kill_9_then_resume_finishes_without_rewriting(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=4, duration_s=1.0)
    run = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with agent_thread() as agent:
        process = subprocess.Popen(
            [sys.executable, "-m", "speecheval", "fdb10", "record", "--dataset-root",
             str(dataset), "--agent", "native-realtime", "-o", f"url={agent.url}",
             "--out", str(run), *FAST], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not (run / "samples/icc_backchannel/2/status.json").exists():
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait()
        document = json.loads((run / "run.json").read_text())
        assert document["status"] == "running"
        before = _tree_bytes(run)
        finished = {key.split("/")[2] for key in before if key.endswith("status.json")}
        assert {"1", "2"} <= finished and len(finished) < 4
        killed = tmp_path / "killed"
        shutil.copytree(run, killed)
        assert main(["fdb10", "record", "--resume", str(run)]) == 0
    after = _tree_bytes(run)
    assert {k: v for k, v in after.items() if k in before} == before
    # exported, every sample finished before the kill gives the same bytes as before
    export_tree([killed], dataset, tmp_path / "tree-killed")
    export_tree([run], dataset, tmp_path / "tree")
    for local_id in finished:
        wav = f"icc_backchannel/{local_id}/output.wav"
        assert (tmp_path / "tree-killed" / wav).read_bytes() == (tmp_path / "tree" / wav
                                                                  ).read_bytes()
    assert all(_status(run, f"icc_backchannel/{i}")["status"] == "complete" for i in range(1, 5))
    assert json.loads((run / "run.json").read_text())["status"] == "complete"
    assert not list((run / "samples").glob("*/.*"))   # no staging folder left


def test_resume_refuses_a_changed_dataset(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=0.5)
    run = tmp_path / "run"
    with agent_thread() as agent:
        assert _record(dataset, run, agent.url) == 0
    (dataset / "icc_backchannel/1/transcription.json").write_text("[]\n")
    assert main(["fdb10", "record", "--resume", str(run)]) == 2
    assert "has revision" in capsys.readouterr().err


def test_resume_asks_again_for_a_redacted_option(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=0.5)
    run = tmp_path / "run"
    with agent_thread() as agent:
        assert _record(dataset, run, agent.url + "?token=s3cr3t-value",
                       "--sample-id", "icc_backchannel/1") == 0
        document = json.loads((run / "run.json").read_text())
        assert "s3cr3t-value" not in (run / "run.json").read_text()
        assert document["agent"]["options"]["url"].endswith("token=REDACTED")
        # pretend the run was killed before its second sample: widen the selection
        document["selection"].append("icc_backchannel/2")
        (run / "run.json").write_text(json.dumps(document))
        assert main(["fdb10", "record", "--resume", str(run)]) == 2
        assert "option(s) url were redacted" in capsys.readouterr().err
        assert not (run / "samples/icc_backchannel/2").exists()
        assert main(["fdb10", "record", "--resume", str(run), "-o",
                     f"url={agent.url}?token=s3cr3t-value"]) == 0
    assert _status(run, "icc_backchannel/2")["status"] == "complete"
