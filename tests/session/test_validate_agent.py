"""``session validate`` refuses an agent that ``session run`` cannot build (it passed
``adapter: livekit``, and the run then stopped on "unknown agent"), naming the file, the
key and its line, and the agents there are; ``session run`` names them the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from speecheval.cli import main

from .helpers import write_scenario

KNOWN = ("mock, native-realtime, openai-realtime, pcm-websocket, pipecat, vllm-omni-duplex, "
         "webrtc, "
         "websocket (voicebench's name for pcm-websocket), or module:Class for your own")


def _scenario(tmp_path: Path, agent: str) -> Path:
    return write_scenario(tmp_path, f"""
name: agents
{agent}
turns:
  - id: ask
    audio: {{synth: tone, duration_ms: 300, freq_hz: 300}}
""")


def test_an_unknown_adapter_is_refused_with_the_known_ones(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _scenario(tmp_path, "adapter:\n  options: {url: 'ws://127.0.0.1:9'}\n"
                               "  type: livekit")
    assert main(["session", "validate", str(path)]) == 2
    captured = capsys.readouterr()
    # "type" is on line 4: name (1), adapter (2), options (3), type (4)
    assert captured.err == (f"error: {path}: adapter.type (line 4): unknown agent 'livekit'; "
                            f"the agents are {KNOWN}\n")
    assert "ok" not in captured.out
    out = tmp_path / "run"
    assert main(["session", "run", str(path), "--out", str(out)]) == 2
    assert capsys.readouterr().err == captured.err
    assert not out.exists()


def test_a_custom_class_that_cannot_be_loaded_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _scenario(tmp_path, "agent: {type: 'no_such_module_here:Agent'}")
    assert main(["session", "validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}: agent.type (line 2): agent no_such_module_here:"
                          f"Agent: cannot load 'Agent' from module 'no_such_module_here'")


@pytest.mark.parametrize("agent", ["adapter: {type: websocket}", "agent: {type: mock}",
                                   "agent: {type: 'tests.agents.custom_transport:EchoTransport'}",
                                   ""])
def test_agents_that_run_pass(tmp_path: Path, agent: str,
                              capsys: pytest.CaptureFixture[str]) -> None:
    path = _scenario(tmp_path, agent)
    assert main(["session", "validate", str(path)]) == 0
    assert capsys.readouterr().out == f"ok {path}: agents, 1 turns\n"
