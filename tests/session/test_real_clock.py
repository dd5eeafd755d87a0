"""``session run --agent pcm-websocket`` on the real clock against a local agent.

The local turn-taking agent (``speecheval.agents.local``) is served on 127.0.0.1 from a
background thread; the CLI streams a fixed-timing scenario to it. This checks the wiring
from scenario to the real-clock runner and back to our metrics (a few seconds of real
time), not the agent's behaviour, which its own tests cover.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from speecheval.cli import main

from .helpers import write_scenario

local = pytest.importorskip("speecheval.agents.local")

SCENARIO = """
name: real-clock
tail_ms: 2500
turns:
  - id: ask
    audio: {synth: tone, duration_ms: 800, freq_hz: 300}
    start: {after: session_start, delay_ms: 200}
"""


@pytest.fixture
def agent_url() -> Iterator[str]:
    ready = threading.Event()
    stop: asyncio.Event | None = None
    url: list[str] = []
    loop = asyncio.new_event_loop()

    async def serve() -> None:
        nonlocal stop
        stop = asyncio.Event()
        async with local.LocalAgentServer("turn", "pcm-websocket") as agent:
            url.append(agent.url)
            ready.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(10), "local agent did not start"
    yield url[0]
    assert stop is not None
    loop.call_soon_threadsafe(stop.set)
    thread.join(10)


def test_fixed_timing_scenario_on_the_real_clock(tmp_path: Path, agent_url: str) -> None:
    out = tmp_path / "run"
    code = main(["session", "run", str(write_scenario(tmp_path, SCENARIO)), "--agent",
                 "pcm-websocket", "-o", f"url={agent_url}", "--out", str(out)])
    report = json.loads((out / "report.json").read_text())
    assert code == 0, report["sessions"][0]["fault"]
    assert report["clock"] == "real"
    (turn,) = report["sessions"][0]["turns"]
    assert turn["trigger"] == "session_start" and turn["start_s"] == 0.2
    assert turn["responded"] is True and turn["response_latency_ms"] > 0
    assert report["sessions"][0]["agent_speech_ms"] > 0
    events = (out / "sessions" / "001" / "events.jsonl").read_text()
    assert '"type":"turn"' in events and '"type":"audio"' in events


def test_agent_anchored_turns_are_refused_on_the_real_clock(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = SCENARIO + """
  - id: more
    audio: {synth: tone, duration_ms: 300}
    start: {after: agent_speech_end}
"""
    code = main(["session", "run", str(write_scenario(tmp_path, body)), "--agent",
                 "pcm-websocket", "-o", "url=ws://127.0.0.1:9", "--out", str(tmp_path / "o")])
    assert code == 2
    assert "turn more (line 8) starts on agent_speech_end" in capsys.readouterr().err
