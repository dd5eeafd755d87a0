"""``session run`` against hostile agents: a message nested 200,000 levels deep in the
first of two sessions, and a server that never answers the WebSocket handshake. The
report names each fault; a session the agent did not attack is recorded without one.

The agent of :mod:`hostile.deep_json` echoes every 20 ms frame back and, on its first
connection only, sends the deep message after the fifth echo. Sessions run one at a time
(``--concurrency 1``), in order, so the first connection is session 001's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hostile.deep_json import DeepJsonAgent, deep_array
from hostile.silent_handshake import SilentServer

from speecheval.cli import main

from .helpers import write_scenario

SCENARIO = """
name: hostile
tail_ms: 300
turns:
  - id: ask
    audio: {synth: tone, duration_ms: 600, freq_hz: 300}
    start: {after: session_start, delay_ms: 100}
"""
FRAME = 16000 * 20 // 1000  # 320 samples


def _run(tmp_path: Path, *options: str) -> tuple[int, dict[str, Any], Path]:
    out = tmp_path / "run"
    code = main(["session", "run", str(write_scenario(tmp_path, SCENARIO)), "--agent",
                 "pcm-websocket", *options, "--repeat", "2", "--out", str(out)])
    return code, json.loads((out / "report.json").read_text()), out


def _first_connection(number: int, path: str) -> bool:
    return number == 1


def test_a_deep_message_is_the_sessions_fault_and_the_next_session_runs(
        tmp_path: Path) -> None:
    with DeepJsonAgent("pcm-websocket", deep_array(), targets=_first_connection) as agent:
        code, report, out = _run(tmp_path, "-o", f"url={agent.url}")
    assert code == 3
    reason = f"agent sent JSON nested deeper than 64 levels at char 64: {'[' * 60!r}"
    assert [s["fault"] for s in report["sessions"]] == [reason, None]
    assert report["summary"]["faulted_sessions"] == 1
    events = [json.loads(line) for line in
              (out / "sessions/001/events.jsonl").read_text().splitlines()]
    assert [e["reason"] for e in events if e["type"] == "fault"] == [reason]
    # the five echoed frames before the message, and nothing after it
    assert [e["samples"] for e in events if e["type"] == "audio"] == [FRAME] * 5
    assert [(c.number, c.attacked) for c in agent.connections] == [(1, True), (2, False)]


def test_a_server_silent_after_accepting_is_a_connect_fault_in_every_session(
        tmp_path: Path) -> None:
    with SilentServer() as server:
        code, report, _ = _run(tmp_path, "-o", f"url={server.ws_url}",
                               "-o", "connect_timeout_s=0.5")
        url = server.ws_url
        accepted = server.accepted
    assert code == 3
    reason = f"cannot connect to {url}: no answer to the WebSocket handshake within 0.5 s"
    assert [s["fault"] for s in report["sessions"]] == [reason, reason]
    assert accepted == 2
