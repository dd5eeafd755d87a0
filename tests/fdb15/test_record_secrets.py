"""No secret of a run reaches a file or a stream of ``fdb15 record``, ``export`` or ``asr``
when the agent and the ASR server echo every request back (see
:mod:`hostile.echo_secrets` and ``tests/fdb10/test_record_secrets.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile.echo_secrets import CANARIES, EchoAgent, echo_http, leaked

from speecheval.cli import main

from .test_capture import PAIRS, tiny_dataset

KEY_VARIABLE = "SPEECHEVAL_ECHO_VARIABLE"  # named by --api-key-env (not a secret name)


def test_record_export_and_asr_keep_the_echoed_secrets_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SPEECHEVAL_CANARY_TOKEN", CANARIES.env_key)
    monkeypatch.setenv(KEY_VARIABLE, CANARIES.header_key)
    dataset = tiny_dataset(tmp_path / "ds")
    run, tree = tmp_path / "run", tmp_path / "tree"
    with EchoAgent(fault=False) as agent:
        assert main(["fdb15", "record", "--dataset-root", str(dataset),
                     "--sample-id", PAIRS[0], "--agent", "pcm-websocket",
                     "-o", f"url={CANARIES.url(agent.url)}", "-o",
                     f"headers={CANARIES.headers()}", "--out", str(run), "--grace", "0.3",
                     "--timeout", "3"]) == 0
    assert main(["fdb15", "export", str(run), "--out", str(tree)]) == 0
    with echo_http() as server:
        assert main(["fdb15", "asr", "--tree", str(tree), "--backend", "openai-compatible",
                     "--base-url", server.url, "--model", "m", "--api-key-env",
                     KEY_VARIABLE, "--jobs", "1"]) == 0
    printed = capfd.readouterr()
    written = "".join(path.read_bytes().decode("latin-1") for folder in (run, tree)
                      for path in sorted(folder.rglob("*")) if path.is_file())
    assert not leaked(written + printed.out + printed.err)
    for member in ("input", "clean_input"):
        trace = (run / "samples" / PAIRS[0] / member / "trace.jsonl").read_text()
        [echo] = [e["text"] for e in map(json.loads, trace.splitlines())
                  if e["type"] == "transcript"]
        assert echo.startswith("request /agent?token=REDACTED ")
        assert "Authorization: REDACTED" in echo and "X-Trace: REDACTED" in echo
    assert json.loads((run / "run.json").read_text())["server"]["probe"]["models"][:2] == [
        "echo-model", "key-REDACTED"]
    words = [chunk["text"] for chunk in json.loads(
        (tree / PAIRS[0] / "output.json").read_text())["chunks"]]
    assert "Bearer" in words and words[words.index("Bearer") + 1] == "REDACTED"
