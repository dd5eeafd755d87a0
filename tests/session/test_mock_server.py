"""``speecheval session mock-server`` serves a local agent that a session can run against."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
from pathlib import Path
from typing import IO

import pytest

from speecheval.cli import main

from .helpers import write_scenario

SCENARIO = """
name: against-mock-server
tail_ms: 2000
turns:
  - audio: {synth: tone, duration_ms: 600, freq_hz: 300}
    start: {after: session_start, delay_ms: 100}
"""


def read_line(stream: IO[str], timeout_s: float) -> str:
    """One line from a child's pipe, or an assertion error after ``timeout_s`` (no hang)."""
    ready, _, _ = select.select([stream], [], [], timeout_s)
    assert ready, f"no line from the mock server within {timeout_s:g} s"
    return stream.readline()


def test_mock_server_serves_a_session(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "speecheval", "session", "mock-server", "--port", "0",
         "-o", "endpoint_silence_ms=300"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert server.stdout is not None
        url = read_line(server.stdout, 30).strip()
        if not url.startswith("ws://127.0.0.1:"):
            server.terminate()
            raise AssertionError(f"mock server printed {url!r}: {server.communicate(10)[1]}")
        out = tmp_path / "run"
        code = main(["session", "run", str(write_scenario(tmp_path, SCENARIO)), "--agent",
                     "pcm-websocket", "-o", f"url={url}", "--out", str(out)])
        report = json.loads((out / "report.json").read_text())
        assert code == 0, report["sessions"][0]["fault"]
        (turn,) = report["sessions"][0]["turns"]
        assert turn["responded"] is True
    finally:
        server.terminate()
        server.wait(10)


def test_mock_server_rejects_a_bad_option(capsys: pytest.CaptureFixture[str]) -> None:
    # in this process (the refusal is the option check's, not the process's; a server that
    # started instead would hold the test until pytest-timeout fails it)
    assert main(["session", "mock-server", "--port", "0", "-o", "fault=explode"]) == 2
    assert "fault" in capsys.readouterr().err


def test_mock_server_on_a_taken_port_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["session", "mock-server", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: port {port} is already in use on 127.0.0.1; choose another "
                   "--port, or --port 0 for a free one\n")
