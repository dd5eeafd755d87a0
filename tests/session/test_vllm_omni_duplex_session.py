"""``session run`` through vllm-omni-duplex against the local vLLM-Omni-protocol agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fdb10.capturekit import agent_thread

from speecheval.cli import main

from .helpers import write_scenario


def test_session_run_through_the_transport(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    scenario = write_scenario(tmp_path, """
        name: vllm-duplex
        sample_rate: 16000
        frame_ms: 20
        tail_ms: 3000
        turns:
          - id: ask
            audio: {synth: tone, duration_ms: 500, freq_hz: 300}
            start: {after: session_start, delay_ms: 200}
        """)
    out = tmp_path / "run"
    with agent_thread("duplex", "vllm-omni-duplex", {"voice": "synthetic"}) as agent:
        code = main(["session", "run", str(scenario), "--agent", "vllm-omni-duplex",
                     "-o", f"url={agent.url}", "--out", str(out)])
    capsys.readouterr()
    assert code == 0
    assert agent.log.rejections == []
    kinds = [c["type"] for c in agent.log.controls]
    # the capability check's session, then the run's: each opens with session.update
    assert kinds.count("session.update") == 2 and "playback.ack" in kinds
    session = json.loads((out / "report.json").read_text())["sessions"][0]
    assert session["fault"] is None
    (turn,) = session["turns"]
    # the tone ends at 0.7 s; the agent endpoints after 300 ms of silence and answers
    # 200 ms later: 500 ms, plus the 80 ms chunks and delivery (~60 ms), plus what this
    # machine held the sender up in the same run
    assert turn["responded"] is True
    slack = 160 + session["send_lateness_ms"]["max"]
    assert 500 <= turn["response_latency_ms"] <= 500 + slack, (turn, slack)
