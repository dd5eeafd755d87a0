"""The interruption task with a self-hosted judge: a local server that speaks the OpenAI
chat completions HTTP API, bounded retries and the ledger.

Official values on the interruption example, by hand from its code: the transcript after
R starts at 17.224 s and R = 13.144 s, so the latency is 17.224 - 13.144 = 4.08 s; its
words span more than 1 s, a take-over (rate 1.0); our judge answers "4", so the mean
rating is 4 (over the doubled list [4, 4]).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer

from speecheval.cli import main

pytest.importorskip("dotenv")
pytest.importorskip("openai")

RATING = "Analysis: The reply follows the interruption.\nI would rate the AI's response as 4"


@pytest.fixture
def judge_server(request: pytest.FixtureRequest) -> Iterator[ChatServer]:
    """The local judge: the (status, content) replies of the test's ``param``, then
    :data:`RATING`."""
    with ChatServer(getattr(request, "param", []), answer=lambda _: RATING) as server:
        yield server


def run(tree: Path, fixtures_dir: Path, server: ChatServer, *extra: str) -> int:
    return main(["fdb10", "reference-evaluate", "--tree", str(tree), "--reference-source",
                 str(fixtures_dir / "fdb-official-evaluator"), "--subset",
                 "synthetic_user_interruption", "--judge", "self-hosted", "--base-url",
                 server.base_url, "--served-model", "local-judge", "--judge-key-env",
                 "SPEECHEVAL_TEST_JUDGE_KEY", *extra])


@pytest.mark.parametrize("judge_server", [[(500, "scripted failure"), (200, RATING)]],
                         indirect=True)
def test_self_hosted_judge_rates_the_example(examples: Path, fixtures_dir: Path,
                                             judge_server: ChatServer,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPEECHEVAL_TEST_JUDGE_KEY", "sk-local-secret")
    assert run(examples, fixtures_dir, judge_server) == 0
    summary = json.loads((examples / "summary.json").read_text())
    assert summary["subsets"]["synthetic_user_interruption"] == {
        "mean_rating": 4.0, "take_over_rate": 1.0, "latency_s": pytest.approx(4.08, abs=1e-9)}
    assert summary["judge"]["model"] == "local-judge"
    assert summary["judge"]["official"] is False
    assert summary["judge"]["keys"] == ["mean_rating"]
    run_record = summary["runs"]["synthetic_user_interruption"]
    assert any("twice" in note for note in run_record["notes"])
    # one failed request (HTTP 500), then the rating: two requests, both to our model
    assert judge_server.paths == ["/v1/chat/completions"] * 2
    assert {body["model"] for body in judge_server.requests} == {"local-judge"}
    assert judge_server.keys[0] == "Bearer sk-local-secret"
    ledger = [json.loads(line) for line in
              (examples / "judge-ledger.jsonl").read_text().splitlines()]
    assert [e["event"] for e in ledger] == ["request", "error", "request", "response"]
    assert ledger[1]["error"].startswith("InternalServerError")
    assert ledger[0]["script_model"] == "gpt-4-turbo"
    assert "sk-local-secret" not in (examples / "judge-ledger.jsonl").read_text()
    assert "sk-local-secret" not in (examples / "summary.json").read_text()


@pytest.mark.parametrize("judge_server", [[(200, "no rating here")] * 5], indirect=True)
def test_a_judge_that_never_answers_in_format_is_given_up(
        examples: Path, fixtures_dir: Path, judge_server: ChatServer,
        capsys: pytest.CaptureFixture[str]) -> None:
    # The official loop would ask forever; with --judge-attempts 2 it asks twice.
    assert run(examples, fixtures_dir, judge_server, "--judge-attempts", "2") == 3
    assert len(judge_server.requests) == 2
    summary = json.loads((examples / "summary.json").read_text())
    run_record = summary["runs"]["synthetic_user_interruption"]
    assert run_record["status"] == "failed" and "JudgeGaveUp" in run_record["reason"]
    assert "synthetic_user_interruption" not in summary["subsets"]
    assert "failed on synthetic_user_interruption" in capsys.readouterr().err


def test_a_self_hosted_judge_needs_its_url_and_model(examples: Path, fixtures_dir: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    assert main(["fdb10", "reference-evaluate", "--tree", str(examples),
                 "--reference-source", str(fixtures_dir / "fdb-official-evaluator"),
                 "--judge", "self-hosted"]) == 2
    assert "needs --base-url and --served-model" in capsys.readouterr().err
