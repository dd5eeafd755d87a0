"""``transcripts run`` keeps every secret of the run out of its files and streams, and a
``command`` system sees only the variables its configuration names.

Three systems run on one sample: two ``command`` systems that print their whole
environment to stdout and stderr and write it as their transcript (one of them then
exits with status 3, so its reason quotes its stderr), and an ``openai-compatible``
server that answers with its request as words, the ``Authorization: Bearer <key>``
header included (see :mod:`hostile.echo_secrets`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hostile.echo_secrets import CANARIES, PROGRAM, echo_http, leaked
from run_fixtures import cli

GIVEN = "SPEECHEVAL_GIVEN_VARIABLE"  # named by the command systems' env (not a secret name)
ASR_KEY = "SPEECHEVAL_ASR_VARIABLE"  # the openai-compatible system's api_key_env
NOT_GIVEN = "SPEECHEVAL_CANARY_TOKEN"  # a key variable of this process, named by nobody
BASE = {"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"}
"""What every program is given of this process's environment (those that are set)."""


def _manifest(folder: Path, base_url: str, env: str = f"    env: [{GIVEN}]\n") -> Path:
    rng = np.random.default_rng(5)
    sf.write(str(folder / "one.wav"), rng.uniform(-0.3, 0.3, 32_000), 16_000, subtype="PCM_16")
    systems = "".join(f"""  {name}:
    adapter: command
    command: [{sys.executable}, {PROGRAM}, "{{input}}", "{{output}}", "{status}"]
    output_suffix: .stm
    version: echo 1
{env}""" for name, status in (("echo", 0), ("failing", 3)))
    path = folder / "manifest.yaml"
    path.write_text(f"""format: speecheval.transcripts.run-manifest/1
systems:
{systems}  asr:
    adapter: openai-compatible
    base_url: {base_url}
    model: m
    api_key_env: {ASR_KEY}
    max_attempts: 1
samples:
  - id: one
    audio: one.wav
""", encoding="utf-8")
    return path


def test_no_secret_in_any_file_or_stream_and_only_named_variables(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(GIVEN, CANARIES.query_token)
    monkeypatch.setenv(ASR_KEY, CANARIES.header_key)
    monkeypatch.setenv(NOT_GIVEN, CANARIES.env_key)
    out = tmp_path / "run"
    with echo_http() as server:
        code = cli("run", "--manifest", _manifest(tmp_path, server.url), "--system", "echo",
                   "--system", "failing", "--system", "asr", "--jobs", "1", "--out", out)
    printed = capfd.readouterr()
    assert code == 3, printed.err
    written = "".join(p.read_bytes().decode("latin-1") for p in sorted(out.rglob("*"))
                      if p.is_file())
    assert not leaked(written + printed.out + printed.err)
    raw = out / "raw"
    # the program saw the base environment and the variable it was given, nothing else
    seen = dict(line.split("=", 1) for line in
                (raw / "echo/production_complete_file/one/r1/stdout.txt").read_text()
                .splitlines())
    assert set(seen) <= {*BASE, GIVEN}
    assert seen[GIVEN] == "REDACTED"
    # the failing program's reason quotes its stderr, scrubbed
    failing = json.loads((raw / "failing/production_complete_file/one/r1/meta.json")
                         .read_text())
    assert failing["status"] == "failed"
    assert f"{GIVEN}=REDACTED" in failing["reason"]
    assert f"failed: failing/production_complete_file/one/r1: {failing['reason']}" in \
        printed.out
    # the ASR server's words: its request, with the key it was sent replaced
    rows = json.loads((out / "derived/asr/production_complete_file/one/r1/"
                       "transcript@seglst-1.json").read_text())
    assert "Authorization: Bearer REDACTED" in " ".join(r["words"] for r in rows)
    # the configuration names the variables (never their values)
    assert json.loads((out / "run.json").read_text())["systems"]["echo"]["config"]["env"] == [
        GIVEN]


def test_a_program_without_env_gets_the_base_environment_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ASR_KEY, CANARIES.header_key)
    monkeypatch.setenv(NOT_GIVEN, CANARIES.env_key)
    out = tmp_path / "run"
    assert cli("run", "--manifest", _manifest(tmp_path, "http://127.0.0.1:9/v1", env=""),
               "--system", "echo", "--out", out) == 0
    stdout = (out / "raw/echo/production_complete_file/one/r1/stdout.txt").read_text()
    seen = {line.split("=", 1)[0] for line in stdout.splitlines()}
    assert seen <= BASE and "PATH" in seen
    config = json.loads((out / "run.json").read_text())["systems"]["echo"]["config"]
    assert "env" not in config  # a manifest without env keeps the configuration it had
