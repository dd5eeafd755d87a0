"""``fdb10 record`` against hostile agents: a message nested 200,000 levels deep, a
transport that raises, a server that never answers the handshake. Each is the faulted
sample's recorded error with its reason, and the run goes on: the other sample of the
same run is recorded complete.

The agent of :mod:`hostile.deep_json` echoes every 80 ms packet back; in sample 1 (its
URL ends with ``/1``) it sends the deep message after the fifth echo.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from hostile.deep_json import DeepJsonAgent, JsonAnswerServer, deep_array, deep_event
from hostile.silent_handshake import SilentServer

from speecheval.cli import main

from .capturekit import read_status, short_dataset

FIRST, SECOND = "icc_backchannel/1", "icc_backchannel/2"
PACKET = 16000 * 80 // 1000  # 1280 samples in an 80 ms packet at 16 kHz
INPUT = 16000  # samples in each 1.0 s input
OPTIONS = {"pcm-websocket": [], "openai-realtime": ["-o", "api_key_env=",
                                                    "-o", "transcription_model="],
           "native-realtime": []}


def _record(tmp_path: Path, agent: str, options: list[str]) -> tuple[int, Path]:
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=1.0)
    run = tmp_path / "run"
    code = main(["fdb10", "record", "--dataset-root", str(dataset), "--agent", agent,
                 *options, "--out", str(run), "--grace", "0.3", "--timeout", "2"])
    return code, run


def _first_sample(number: int, path: str) -> bool:
    """Sample 1's connection (openai-realtime adds ``?model=`` to the path)."""
    return urlsplit(path).path.endswith("/1")


@pytest.mark.parametrize("protocol", sorted(OPTIONS))
def test_a_deep_message_faults_its_sample_and_the_run_goes_on(tmp_path: Path,
                                                              protocol: str) -> None:
    payload = (deep_array() if protocol == "pcm-websocket"
               else deep_event("response.output_audio.delta"))
    with DeepJsonAgent(protocol, payload, targets=_first_sample) as agent:
        code, run = _record(tmp_path, protocol,
                            ["-o", f"url={agent.url}/{{sample_id}}", *OPTIONS[protocol]])
    assert code == 3
    assert json.loads((run / "run.json").read_text())["status"] == "complete"
    faulted, other = read_status(run, FIRST), read_status(run, SECOND)
    # char 64 of bare arrays; in the event the object is level 1 and 49 characters come
    # before the arrays: char 49 + 63 = 112 (see tests/agents/test_hostile_json.py)
    position = 64 if protocol == "pcm-websocket" else 112
    assert faulted["status"] == "error"
    assert faulted["reasons"] == [f"agent sent JSON nested deeper than 64 levels "
                                  f"at char {position}: {payload[:60]!r}"]
    assert (other["status"], other["reasons"]) == ("complete", [])
    if protocol != "openai-realtime":  # the wire rate is the input's: nothing resampled
        # the five packets echoed before the message, then nothing
        assert faulted["received_samples"] == 5 * PACKET
        # every packet echoed: the whole 1.0 s input (12 packets and a 640-sample rest)
        assert other["received_samples"] == INPUT
    trace = _trace(run, FIRST)
    assert [e["reason"] for e in trace if e["type"] == "fault"] == faulted["reasons"]
    prefix = "" if protocol == "pcm-websocket" else "/v1/realtime"
    assert sorted((urlsplit(c.path).path, c.attacked) for c in agent.connections) == [
        (f"{prefix}/{FIRST}", True), (f"{prefix}/{SECOND}", False)]


def test_an_exception_in_a_transport_faults_its_sample_and_the_run_goes_on(
        tmp_path: Path) -> None:
    code, run = _record(tmp_path, "tests.agents.raising_transport:RaisingTransport",
                        ["-o", "url=echo/{sample_id}", "-o", "only=/1", "-o", "after=5"])
    assert code == 3
    faulted, other = read_status(run, FIRST), read_status(run, SECOND)
    assert (faulted["status"], faulted["reasons"]) == (
        "error", ["the agent's transport failed: RecursionError: raised by the test "
                  "transport"])
    assert faulted["received_samples"] == 5 * PACKET  # the five events yielded before it
    assert (other["status"], other["reasons"]) == ("complete", [])
    assert other["received_samples"] == INPUT


def test_a_server_that_never_answers_the_handshake_is_a_fault_per_sample(
        tmp_path: Path) -> None:
    with SilentServer() as server:
        code, run = _record(tmp_path, "native-realtime", ["-o", f"url={server.ws_url}"])
        accepted = server.accepted
    assert code == 3
    assert json.loads((run / "run.json").read_text())["status"] == "complete"
    for sample_id in (FIRST, SECOND):
        status = read_status(run, sample_id)
        assert (status["status"], status["reasons"]) == (
            "error", ["agent stalled: connecting blocked for more than 2 s"])
        assert status["received_samples"] == 0
    assert accepted == 3  # the /v1/models probe and one connection per sample


def _trace(run: Path, sample_id: str) -> list[dict[str, Any]]:
    text = (run / "samples" / sample_id / "trace.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_a_deep_models_probe_answer_is_recorded_not_a_crash(tmp_path: Path) -> None:
    # the run probes GET /v1/models beside the agent's URL: here an HTTP server whose
    # /v1/... answers are nested arrays (the agent itself is the in-process echo)
    with JsonAnswerServer({"v1": deep_array().encode()}) as server:
        code, run = _record(tmp_path, "tests.agents.raising_transport:RaisingTransport",
                            ["-o", f"url=http://127.0.0.1:{server.port}/{{sample_id}}",
                             "-o", "only=/none"])
        probed = list(server.requests)
    assert code == 0
    assert probed == ["/v1/models"]
    assert json.loads((run / "run.json").read_text())["status"] == "complete"
    assert [read_status(run, s)["status"] for s in (FIRST, SECOND)] == ["complete"] * 2
