"""``transcripts run`` with the openai-compatible adapter, against the local server of
``tests/asr/test_openai_compatible.py`` (real sockets, the request parsed by the standard
library's multipart parser): retries, a 2xx whose body is cut off, the exact PCM sent,
the key kept out of every file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from asr.test_openai_compatible import KEY, Answer, Received, Server, error, server
from run_fixtures import cli

from speecheval.transcripts import lineage

__all__ = ["server"]  # the fixture, imported for pytest

VERBOSE = {"task": "transcribe", "language": "english", "duration": 4.0,
           "text": "hello there bye",
           "segments": [{"id": 0, "seek": 0, "start": 0.0, "end": 1.5, "text": " hello there",
                         "tokens": [50364, 2425, 456]},
                        {"id": 1, "seek": 0, "start": 2.0, "end": 3.0, "text": " bye",
                         "tokens": [50464, 6543]}],
           "words": [{"word": "hello", "start": 0.0, "end": 0.7},
                     {"word": "there", "start": 0.7, "end": 1.5},
                     {"word": "bye", "start": 2.0, "end": 3.0}]}
BODY = json.dumps(VERBOSE).encode()
CUT = BODY[:97]


def verbose(received: Received) -> Answer:
    return 200, {"Content-Type": "application/json"}, BODY


def cut_json(received: Received) -> Answer:
    """A 2xx whose body is complete as HTTP (Content-Length matches) but whose JSON stops
    half way through a segment, as a job that ends early would."""
    return 200, {"Content-Type": "application/json"}, CUT


def manifest(folder: Path, url: str) -> Path:
    rng = np.random.default_rng(1)
    for name in ("one", "two"):
        sf.write(str(folder / f"{name}.wav"), rng.integers(-2000, 2000, 64_000, np.int16),
                 16_000, subtype="PCM_16")
    path = folder / "manifest.yaml"
    path.write_text(f"""format: speecheval.transcripts.run-manifest/1
systems:
  vendor:
    adapter: openai-compatible
    base_url: {url}
    model: whisper-large-v3
    api_key_env: SPEECHEVAL_TEST_KEY
    backoff_s: 0.0
samples:
  - id: one
    audio: one.wav
  - id: two
    audio: two.wav
""")
    return path


def test_retries_truncated_body_exact_pcm_and_no_key(
        tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SPEECHEVAL_TEST_KEY", KEY)
    server.script = [lambda r: error(503, "overloaded"), verbose, cut_json]
    out = tmp_path / "run"
    assert cli("run", "--manifest", manifest(tmp_path, server.url), "--system", "vendor",
               "--out", out) == 3
    assert "1 succeeded, 1 failed" in capsys.readouterr().out
    assert len(server.received) == 3
    first = server.received[0]
    assert first.authorization == f"Bearer {KEY}"
    assert first.fields["response_format"] == ["verbose_json"]
    assert first.fields["timestamp_granularities[]"] == ["segment", "word"]
    assert first.subtype == "1ch PCM_16" and first.rate == 16_000
    sent, _ = sf.read(str(out / "input" / "one.wav"), dtype="int16")
    assert np.array_equal(np.round(first.audio * 32768).astype(np.int16), sent)

    raw = out / "raw" / "vendor" / "production_complete_file"
    one = json.loads((raw / "one" / "r1" / "meta.json").read_text())
    assert (one["status"], one["retries"], one["runner_stop_reason"]) == (
        "succeeded", 1, "HTTP 2xx answer")
    assert one["generation"]["token_count"] == 5  # 3 + 2 tokens in the two segments
    assert (raw / "one" / "r1" / "response.json").read_bytes() == BODY
    rows = json.loads((out / "derived" / "vendor" / "production_complete_file" / "one" /
                       "r1" / "transcript@seglst-1.json").read_text())
    assert [(r["start_time"], r["end_time"], r["words"]) for r in rows] == [
        (0.0, 1.5, "hello there"), (2.0, 3.0, "bye")]

    two = json.loads((raw / "two" / "r1" / "meta.json").read_text())
    assert two["status"] == "failed" and two["retries"] == 0
    assert two["reason"].startswith(f"the answer is not JSON ({len(CUT)} bytes")
    assert (raw / "two" / "r1" / "response.json").read_bytes() == CUT  # kept for the gate
    records = {r["id"]: r for r in lineage.read_records(out)}
    assert records["raw:vendor/production_complete_file/two/r1"]["status"] == "failed"
    assert "transcript:vendor/production_complete_file/two/r1@seglst/1" not in records
    for path in out.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_a_connection_cut_mid_body_is_retried(tmp_path: Path, server: Server,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPEECHEVAL_TEST_KEY", KEY)
    server.script = [verbose, verbose, verbose]
    server.truncate_to = {0: 40}
    out = tmp_path / "run"
    assert cli("run", "--manifest", manifest(tmp_path, server.url), "--system", "vendor",
               "--out", out) == 0
    meta = json.loads((out / "raw" / "vendor" / "production_complete_file" / "one" / "r1" /
                       "meta.json").read_text())
    assert (meta["status"], meta["retries"]) == ("succeeded", 1)


def test_missing_key_is_bad_input_and_writes_nothing(
        tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("SPEECHEVAL_TEST_KEY", raising=False)
    out = tmp_path / "run"
    assert cli("run", "--manifest", manifest(tmp_path, server.url), "--system", "vendor",
               "--out", out) == 2
    assert "SPEECHEVAL_TEST_KEY, which is not set" in capsys.readouterr().err
    assert not out.exists() and server.received == []
