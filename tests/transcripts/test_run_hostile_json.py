"""``transcripts run`` against systems that answer with JSON nested 200,000 levels deep
(an ASR server, :mod:`hostile.deep_json`; a program writing a SegLST file): each such
answer is a failed job with its reason, and the run goes on to the jobs of a
well-behaved system of the same run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hostile.deep_json import JsonAnswerServer, deep_array
from hostile.silent_handshake import SilentServer
from run_fixtures import blocks_audio, cli, write_manifest

GOOD = {"task": "transcribe", "language": "english", "duration": 4.0, "text": "hello there",
        "segments": [{"id": 0, "start": 0.0, "end": 1.5, "text": " hello there"}],
        "words": [{"word": "hello", "start": 0.0, "end": 0.7},
                  {"word": "there", "start": 0.7, "end": 1.5}]}
DEEP = deep_array().encode()


def _manifest(folder: Path, server: JsonAnswerServer) -> Path:
    rng = np.random.default_rng(1)
    for name in ("one", "two"):
        sf.write(str(folder / f"{name}.wav"), rng.integers(-2000, 2000, 64_000, np.int16),
                 16_000, subtype="PCM_16")
    systems = "".join(f"""  {name}:
    adapter: openai-compatible
    base_url: {server.url(name)}
    model: whisper-large-v3
    api_key_env: SPEECHEVAL_TEST_KEY
    backoff_s: 0.0
""" for name in ("deep", "good"))
    path = folder / "manifest.yaml"
    path.write_text(f"""format: speecheval.transcripts.run-manifest/1
systems:
{systems}samples:
  - id: one
    audio: one.wav
  - id: two
    audio: two.wav
""")
    return path


def test_a_deep_answer_is_a_failed_job_and_the_run_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SPEECHEVAL_TEST_KEY", "any")
    out = tmp_path / "run"
    with JsonAnswerServer({"deep": DEEP, "good": json.dumps(GOOD).encode()}) as server:
        code = cli("run", "--manifest", _manifest(tmp_path, server), "--system", "deep",
                   "--system", "good", "--out", out)
    assert code == 3
    assert "2 succeeded, 2 failed" in capsys.readouterr().out
    for sample in ("one", "two"):
        raw = out / "raw" / "deep" / "production_complete_file" / sample / "r1"
        meta = json.loads((raw / "meta.json").read_text())
        assert (meta["status"], meta["runner_stop_reason"]) == ("failed", "HTTP 2xx answer")
        # 400,000 bytes; the limit of 64 levels is passed at the 65th "[", char 64
        assert meta["reason"] == ("the answer is not JSON (400000 bytes, nested deeper than "
                                  "64 levels at char 64)")
        assert (raw / "response.json").read_bytes() == DEEP  # kept, as any unusable answer
        good = out / "raw" / "good" / "production_complete_file" / sample / "r1"
        assert json.loads((good / "meta.json").read_text())["status"] == "succeeded"


DEEP_WRITER = "import sys; open(sys.argv[2], 'w').write('[' * 200000 + ']' * 200000)\n"
"""A command system that writes a SegLST output nested 200,000 levels deep."""


def test_a_command_system_writing_deep_json_is_a_failed_job_and_the_run_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocks_audio(tmp_path / "blocks.wav", rate=16_000)
    (tmp_path / "deep_writer.py").write_text(DEEP_WRITER, encoding="utf-8")
    deep = f"""  deep:
    adapter: command
    command: [{sys.executable}, deep_writer.py, "{{input}}", "{{output}}"]
    output_suffix: .json
    version: deep 1.0
"""
    manifest = write_manifest(tmp_path, "  - id: blocks\n    audio: blocks.wav\n", deep)
    out = tmp_path / "run"
    code = cli("run", "--manifest", manifest, "--system", "fake", "--system", "deep",
               "--out", out)
    assert code == 3
    assert "1 succeeded, 1 failed" in capsys.readouterr().out
    raw = out / "raw" / "deep" / "production_complete_file" / "blocks" / "r1"
    meta = json.loads((raw / "meta.json").read_text())
    assert (meta["status"], meta["reason"]) == (
        "failed", "the output is not a valid transcript: not valid JSON: nested deeper than "
                  "64 levels at char 64")
    fake = out / "raw" / "fake" / "production_complete_file" / "blocks" / "r1"
    assert json.loads((fake / "meta.json").read_text())["status"] == "succeeded"


def test_an_asr_server_that_never_answers_is_a_failed_job_and_the_run_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SPEECHEVAL_TEST_KEY", "any")
    out = tmp_path / "run"
    with (SilentServer() as silent,
          JsonAnswerServer({"good": json.dumps(GOOD).encode()}) as server):
        manifest = _manifest(tmp_path, server)
        text = manifest.read_text().replace(
            "  deep:\n", "  deep:\n    timeout_s: 0.5\n    max_attempts: 1\n").replace(
            server.url("deep"), silent.http_url)
        manifest.write_text(text)
        code = cli("run", "--manifest", manifest, "--system", "deep", "--system", "good",
                   "--out", out)
        accepted = silent.accepted
        endpoint = f"{silent.http_url}/audio/transcriptions"
    assert code == 3
    assert "2 succeeded, 2 failed" in capsys.readouterr().out
    assert accepted == 2  # one request per sample, none retried (max_attempts: 1)
    for sample in ("one", "two"):
        raw = out / "raw" / "deep" / "production_complete_file" / sample / "r1"
        meta = json.loads((raw / "meta.json").read_text())
        assert (meta["status"], meta["runner_stop_reason"], meta["reason"]) == (
            "failed", "no usable HTTP answer",
            f"no answer from {endpoint}: timed out (gave up after 1 attempts)")
