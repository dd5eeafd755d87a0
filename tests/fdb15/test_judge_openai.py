"""The OpenAI-compatible judge against a local server speaking the real HTTP API: the
request is the official script's (checked by sending the official eval_behavior_all
through the openai client to the same server), strict JSON, bounded retries, the ledger,
and the refusals."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from chat_server import ChatServer
from hostile.echo_secrets import EchoHttp
from speech_engine import require_speech

from speecheval.core.audio import write_wav
from speecheval.core.errors import InputError
from speecheval.core.timeline import Span
from speecheval.fdb.v15.judge.behavior import judge_case
from speecheval.fdb.v15.judge.openai import JudgeSettings, OpenAIJudge, strict_label

EVALUATION = "fdb-official-evaluator/v1_v1.5/evaluation"
KEY = "sk-test-secret-123"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPEECHEVAL_TEST_JUDGE_KEY", KEY)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as chat:
        yield chat


def _transcript(words: list[tuple[str, float, float]]) -> dict[str, Any]:
    return {"text": " ".join(w for w, _, _ in words),
            "chunks": [{"text": w, "timestamp": [a, b]} for w, a, b in words]}


def _trial(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in ("output.wav", "clean_output.wav"):
        write_wav(folder / name, np.zeros(16_000 * 12), 16_000)
    files = {
        "clean_input.json": [("Tell", 0.5, 0.8), ("me", 0.8, 1.0), ("about", 1.0, 1.3)],
        "input.json": [("Tell", 0.5, 0.8), ("me", 0.8, 1.0), ("about", 1.0, 1.3),
                       ("wait", 5.0, 5.4), ("café", 5.4, 5.9)],
        "clean_output.json": [("Bicycles", 2.0, 2.6), ("began", 2.6, 3.0)],
        "output.json": [("Bicycles", 2.0, 2.6), ("Sure", 7.0, 7.3)],
    }
    for name, words in files.items():
        (folder / name).write_text(json.dumps(_transcript(words)), encoding="utf-8")
    return folder


def _judge(fixtures_dir: Path, server: ChatServer, **overrides: Any) -> OpenAIJudge:
    settings = JudgeSettings(base_url=server.base_url,
                             instruction=fixtures_dir / EVALUATION / "instruction/behavior.txt",
                             api_key_env="SPEECHEVAL_TEST_JUDGE_KEY", backoff_s=0.01,
                             **overrides)
    return OpenAIJudge(settings)


def _case(folder: Path) -> Any:
    return judge_case("user_interruption/1", "user_interruption", folder, "ctx", "wait",
                      Span(5_000_000, 6_000_000))


def test_the_request_is_the_official_scripts(fixtures_dir: Path, server: ChatServer,
                                             tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    openai = pytest.importorskip("openai", reason="openai is not installed (extra test)")
    folder = _trial(tmp_path / "tree" / "user_interruption" / "1")
    verdict = _judge(fixtures_dir, server).judge(_case(folder))
    assert verdict.label == "C_RESPOND"
    ours = server.requests[-1]
    # the official script, unchanged, through the openai client to the same server
    official_dir = tmp_path / "official"
    shutil.copytree(tmp_path / "tree" / "user_interruption", official_dir)
    monkeypatch.chdir(fixtures_dir / EVALUATION)
    monkeypatch.syspath_prepend(str(fixtures_dir / EVALUATION))
    import eval_behavior

    client = openai.OpenAI(api_key=KEY, base_url=server.base_url, max_retries=0)
    ratios = eval_behavior.eval_behavior_all(str(official_dir), client, "behavior")
    assert ratios == {"C": {"C_RESPOND": 1.0}}
    theirs = server.requests[-1]
    assert ours == theirs          # model, messages (prompt and user message) and seed 1
    assert ours["model"] == "gpt-4o-2024-08-06" and ours["seed"] == 1
    assert server.keys == [f"Bearer {KEY}"] * 2


def test_strict_json_with_bounded_retries_and_a_ledger(fixtures_dir: Path, server: ChatServer,
                                                       tmp_path: Path) -> None:
    folder = _trial(tmp_path / "user_interruption" / "1")
    server.replies = [(200, 'Here: {"behaviour": ["C_RESUME"]}'), (503, "busy"),
                      (200, '{"behaviour": ["C_RESUME"]}')]
    judge = _judge(fixtures_dir, server)
    verdict = judge.judge(_case(folder))
    assert verdict.label == "C_RESUME"
    assert [r["seed"] for r in server.requests] == [1, 2, 3]
    events = [(e["attempt"], e["event"]) for e in judge.ledger]
    assert events == [(1, "request"), (1, "reply"), (1, "rejected"), (2, "request"),
                      (2, "error"), (3, "request"), (3, "reply")]
    assert judge.ledger[4]["error"] == "HTTP 503: busy"
    assert KEY not in json.dumps(judge.ledger)


def test_gives_up_after_max_attempts(fixtures_dir: Path, server: ChatServer,
                                     tmp_path: Path) -> None:
    folder = _trial(tmp_path / "user_interruption" / "1")
    server.replies = [(200, '{"behaviour": ["C_MAYBE"]}')] * 2
    judge = _judge(fixtures_dir, server, max_attempts=2)
    verdict = judge.judge(_case(folder))
    assert verdict.label is None
    assert verdict.reason.startswith("no label in 2 attempts: \"behaviour\" must list")
    assert len(server.requests) == 2 and judge.ledger[-1]["event"] == "gave_up"


def test_refusals(fixtures_dir: Path, server: ChatServer, tmp_path: Path) -> None:
    folder = _trial(tmp_path / "user_interruption" / "1")
    server.replies = [(400, "bad model")]
    verdict = _judge(fixtures_dir, server).judge(_case(folder))
    assert verdict == type(verdict)(None, "the judge failed: HTTP 400: bad model")
    server.replies = [(401, f"wrong key {KEY}")]
    with pytest.raises(InputError, match=r"refused the API key .*HTTP 401.*REDACTED"):
        _judge(fixtures_dir, server).judge(_case(folder))


def test_a_judge_that_echoes_its_request_leaves_no_key(fixtures_dir: Path,
                                                        tmp_path: Path) -> None:
    folder = _trial(tmp_path / "user_interruption" / "1")
    with EchoHttp() as echo:
        judge = OpenAIJudge(JudgeSettings(
            base_url=echo.url, instruction=fixtures_dir / EVALUATION / "instruction/behavior.txt",
            api_key_env="SPEECHEVAL_TEST_JUDGE_KEY", max_attempts=1))
        verdict = judge.judge(_case(folder))
    # the reply is the request it answered, the Authorization header with the key in it
    reply = judge.ledger[1]
    assert reply["event"] == "reply"
    assert reply["content"].startswith("request /v1/chat/completions ")
    assert "Authorization: Bearer REDACTED" in reply["content"]
    assert verdict.label is None
    assert KEY not in json.dumps(judge.ledger) + verdict.reason


def test_refuses_a_prompt_that_is_not_the_pinned_one(tmp_path: Path) -> None:
    prompt = tmp_path / "behavior.txt"
    prompt.write_text("label it\n")
    with pytest.raises(InputError, match="not the pinned official prompt"):
        OpenAIJudge(JudgeSettings(base_url="http://127.0.0.1:9/v1", instruction=prompt,
                                  api_key_env="SPEECHEVAL_TEST_JUDGE_KEY"))


def test_strict_label() -> None:
    assert strict_label('{"behaviour": ["C_UNKNOWN"]}') == "C_UNKNOWN"
    for bad in ('{"behaviour": ["C_RESPOND", "C_RESUME"]}', '{"behavior": ["C_RESPOND"]}',
                '{"behaviour": ["C_RESPOND"]}\n{}', "[]"):
        with pytest.raises(ValueError):
            strict_label(bad)


def test_score_with_the_openai_judge_writes_labels_and_the_ledger(
        fixtures_dir: Path, server: ChatServer, tmp_path: Path) -> None:
    require_speech()
    from speecheval.cli import main

    from . import judged_tree

    tree = judged_tree.build(tmp_path / "tree")
    server.replies = [(200, '{"behaviour": ["C_RESUME"]}')]
    out = tmp_path / "scored"
    assert main(["fdb15", "score", "--tree", str(tree), "--out", str(out), "--judge", "openai",
                 "--judge-base-url", server.base_url, "--judge-api-key-env",
                 "SPEECHEVAL_TEST_JUDGE_KEY", "--judge-instruction",
                 str(fixtures_dir / EVALUATION / "instruction/behavior.txt")]) == 0
    labels = [json.loads(line)["label"]
              for line in (out / "behaviour-samples.jsonl").read_text().splitlines()]
    assert labels == ["C_RESUME"] + ["C_RESPOND"] * 4     # the first reply, then the default
    ledger = (out / "behaviour-ledger.jsonl").read_text()
    assert [json.loads(line)["event"] for line in ledger.splitlines()] == \
        ["request", "reply"] * 5
    judge = json.loads((out / "behaviour.json").read_text())["judge"]
    # the local server answers as gpt-4o-2024-08-06 with the official prompt, but it is not
    # api.openai.com: not official, and the file says why
    assert judge["official"] is False
    assert judge["note"] == "the endpoint is not api.openai.com (host class other)"
    assert (judge["host_class"], judge["model_reported"]) == ("other", ["gpt-4o-2024-08-06"])
    assert judge["prompt"]["sent_sha256"] == judge["prompt"]["sha256"] == \
        "19e5477dac9a9a1e11de126783a0b820b3ecb70db5e91181824fa944e1947977"
    assert [json.loads(line)["model"] for line in ledger.splitlines()[1::2]] == \
        ["gpt-4o-2024-08-06"] * 5
    assert all(KEY not in path.read_text() for path in out.iterdir())


def test_the_local_fake_is_not_official_whatever_it_answers(
        fixtures_dir: Path, server: ChatServer, tmp_path: Path) -> None:
    folder = _trial(tmp_path / "user_interruption" / "1")
    judge = _judge(fixtures_dir, server)
    # before any reply there is no reported model
    assert judge.identity()["official"] is False
    assert judge.identity()["note"] == ("the endpoint reported no model (no reply); the "
                                        "endpoint is not api.openai.com (host class other)")
    judge.judge(_case(folder))
    assert judge.official is False
    assert judge.identity()["note"] == "the endpoint is not api.openai.com (host class other)"
    # a server that answers under another name than the one asked for says so
    server.reported_model = "llama-3-8b"
    judge.judge(_case(folder))
    identity = judge.identity()
    assert identity["model"] == "gpt-4o-2024-08-06"           # asked for
    assert identity["model_reported"] == ["gpt-4o-2024-08-06", "llama-3-8b"]
    assert identity["note"] == ("the endpoint reported the model gpt-4o-2024-08-06, "
                                "llama-3-8b; the official model is gpt-4o-2024-08-06; the "
                                "endpoint is not api.openai.com (host class other)")
