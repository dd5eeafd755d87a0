"""The task-success judge, against a local server speaking the chat-completions HTTP API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chat_server import ChatServer
from hostile.echo_secrets import EchoHttp

from speecheval.cli import main

from .helpers import write_scenario

KEY_VARIABLE = "SPEECHEVAL_TEST_JUDGE_KEY"
KEY = "judge-key-123"


def scenario(tmp_path: Path, base_url: str, limit: float = 1.0) -> Path:
    return write_scenario(tmp_path, f"""
name: judged
turns:
  - id: ask
    audio: {{synth: speech, duration_ms: 800}}
    text: "I'd like a table for two at seven."
judge:
  task: "Book a table for two at seven."
  model: judge-model
  base_url: {base_url}
  api_key_env: {KEY_VARIABLE}
  max_attempts: 3
  timeout_s: 10
assert: {{min_task_success_rate: {limit}}}
""")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VARIABLE, KEY)


def test_judge_verdict_after_a_retry_with_its_ledger(tmp_path: Path) -> None:
    pytest.importorskip("faster_whisper")
    verdict = json.dumps({"success": True, "reason": "the table is booked"})
    with ChatServer([(503, "busy"), (200, verdict)], reported_model="judge-x") as server:
        code = main(["session", "run", str(scenario(tmp_path, server.base_url)), "--out",
                     str(tmp_path / "run")])
    assert code == 0
    assert server.paths == ["/v1/chat/completions"] * 2  # 503, then retried
    assert server.keys == [f"Bearer {KEY}"] * 2
    body = server.requests[-1]
    assert body["model"] == "judge-model" and body["temperature"] == 0.0
    prompt = body["messages"][1]["content"]
    assert prompt.startswith("Task: Book a table for two at seven.\n\nConversation:\n")
    assert "Caller: I'd like a table for two at seven.\nAgent: " in prompt
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    task = report["sessions"][0]["task"]
    assert task == {"model": "judge-model", "model_reported": "judge-x", "success": True,
                    "reason": "the table is booked", "problem": None, "attempts": 2}
    assert report["summary"]["task_success"]["rate"] == 1.0
    # voicebench has no task judge: its report reads the assertion from speecheval's
    # summary, as it does max_self_interruptions, rather than fail it for a missing value
    voicebench = json.loads((tmp_path / "run" / "report.voicebench.json").read_text())
    assert voicebench["assertions"] == report["assertions"] == [
        {"key": "min_task_success_rate", "limit": 1.0, "actual": 1.0, "passed": True}]
    assert voicebench["passed"] is True
    ledger = json.loads((tmp_path / "run" / "sessions" / "001" / "judge.json").read_text())
    assert ledger["messages"] == body["messages"]
    assert json.loads(ledger["response"])["model"] == "judge-x"
    assert "HTTP 503" in ledger["failures"]
    written = "".join(p.read_text("latin-1") for p in (tmp_path / "run").rglob("*")
                      if p.is_file())
    assert KEY not in written


def test_an_answer_that_is_not_a_verdict_fails_the_assertion(tmp_path: Path) -> None:
    pytest.importorskip("faster_whisper")
    with ChatServer(answer=lambda _: "I think it went well.") as server:
        code = main(["session", "run", str(scenario(tmp_path, server.base_url)), "--out",
                     str(tmp_path / "run")])
    assert code == 1
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    task = report["sessions"][0]["task"]
    assert task["success"] is None and "is not JSON" in task["problem"]
    assert report["summary"]["task_success"]["invalid"] == 1
    assert report["assertions"][0]["passed"] is False


def test_a_judge_echoing_its_request_leaves_no_key(tmp_path: Path,
                                                   capfd: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("faster_whisper")
    with EchoHttp() as server:  # its completion is the request, Authorization included
        code = main(["session", "run", str(scenario(tmp_path, server.url)), "--out",
                     str(tmp_path / "run")])
    printed = capfd.readouterr()
    assert code == 1
    written = "".join(p.read_bytes().decode("latin-1")
                      for p in sorted((tmp_path / "run").rglob("*")) if p.is_file())
    assert KEY not in written + printed.out + printed.err
    task = json.loads((tmp_path / "run" / "report.json").read_text())["sessions"][0]["task"]
    assert task["problem"].startswith("the judge's answer is not JSON: 'request /v1/chat/")
    assert "Authorization: Bearer REDACTED" in written


def test_a_missing_key_stops_before_the_session(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv(KEY_VARIABLE)
    code = main(["session", "run", str(scenario(tmp_path, "http://127.0.0.1:9/v1")),
                 "--out", str(tmp_path / "run")])
    assert code == 2
    assert not (tmp_path / "run").exists()
    assert f"the environment variable {KEY_VARIABLE}" in capsys.readouterr().err


def test_session_load_neither_judges_nor_transcribes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The load report shows latency, faults and send lateness only: ``session load``
    runs no task judge (no request reaches the judge's server, and its key is not
    needed) and no Whisper pass over the agent track (unfixed: one of each per session,
    and a missing key stopped the command)."""
    import speecheval.session.metrics.analyze as metrics

    from .helpers import serving

    def no_whisper(*args: object, **kwargs: object) -> None:
        raise AssertionError("session load transcribed the agent track")

    monkeypatch.delenv(KEY_VARIABLE)
    monkeypatch.setattr(metrics, "agent_words", no_whisper)
    with ChatServer() as judge, serving() as agent_url:
        short = write_scenario(tmp_path, f"""
name: judged-short
tail_ms: 600
turns:
  - id: ask
    audio: {{synth: tone, duration_ms: 300, freq_hz: 300}}
    reply: {{says_any: [table]}}
judge:
  task: "Book a table for two at seven."
  model: judge-model
  base_url: {judge.base_url}
  api_key_env: {KEY_VARIABLE}
""")
        code = main(["session", "load", str(short),
                     "--agent", "pcm-websocket", "--url", agent_url,
                     "--concurrency", "1", "--out", str(tmp_path / "load")])
    assert code == 0
    assert judge.requests == []
    (row,) = json.loads((tmp_path / "load" / "load.json").read_text())["levels"]
    assert row["sessions"] == 1 and row["response_latency_ms"]["count"] == 1


def test_a_bad_base_url_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["session", "validate", str(scenario(tmp_path, "ftp://user:pw@host/v1"))])
    assert code == 2
    assert "judge.base_url (line 9): must be an http(s) URL" in capsys.readouterr().err


def test_a_refused_key_stops_the_run(tmp_path: Path) -> None:
    """HTTP 401 from the judge is a usage error (exit 2 at the command line), not a
    session without a verdict: every later session would be refused the same way."""
    from types import SimpleNamespace

    from speecheval.core.errors import InputError
    from speecheval.session.metrics.task_judge import judge_session
    from speecheval.session.scenario.judge import JudgeSpec

    with ChatServer([(401, f"Incorrect API key provided: {KEY}")]) as server:
        spec = JudgeSpec("Book a table.", "judge-model", server.base_url, KEY_VARIABLE)
        with pytest.raises(InputError) as raised:
            judge_session(spec, SimpleNamespace(turns=()), (), [])  # type: ignore[arg-type]
    assert len(server.requests) == 1
    assert str(raised.value) == (
        f"judge: {server.base_url}/chat/completions refused the API key from {KEY_VARIABLE} "
        f"(HTTP 401): Incorrect API key provided: REDACTED")
