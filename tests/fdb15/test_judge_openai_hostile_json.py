"""The v1.5 OpenAI-compatible judge against replies nested 200,000 levels deep, in the
HTTP body or in the message content: each is a trial without a label and a reason, and
the next trial is judged as usual (no RecursionError escapes the judge)."""

from __future__ import annotations

import json
from pathlib import Path

from chat_server import ChatServer
from hostile.deep_json import JsonAnswerServer, deep_array

from speecheval.fdb.v15.judge.openai import JudgeSettings, OpenAIJudge

from .test_judge_openai import EVALUATION, _case, _judge, _key, _trial, server

__all__ = ["_key", "server"]  # the fixtures (the key variable, the chat server), for pytest

GOOD = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": "m",
                   "choices": [{"index": 0, "message": {
                       "role": "assistant", "content": '{"behaviour": ["C_RESPOND"]}'}}]})


def test_a_deep_body_is_a_failed_trial_and_the_next_one_is_judged(fixtures_dir: Path,
                                                                 tmp_path: Path) -> None:
    folder = _trial(tmp_path / "user_interruption" / "1")
    bodies = {"deep": deep_array().encode(), "good": GOOD.encode()}
    with JsonAnswerServer(bodies) as hostile:
        judges = {name: OpenAIJudge(JudgeSettings(
            base_url=hostile.url(name), api_key_env="SPEECHEVAL_TEST_JUDGE_KEY",
            instruction=fixtures_dir / EVALUATION / "instruction/behavior.txt",
            backoff_s=0.01)) for name in bodies}
        deep = judges["deep"].judge(_case(folder))
        good = judges["good"].judge(_case(folder))
    # 400,000 bytes of nested arrays; the 65th "[" (char 64) passes the limit of 64 levels
    assert (deep.label, deep.reason) == (None, "the judge failed: the answer is not JSON "
                                               "(400000 bytes, nested deeper than 64 levels "
                                               "at char 64)")
    assert [e["event"] for e in judges["deep"].ledger] == ["request", "failed"]
    assert good.label == "C_RESPOND"


def test_deep_content_is_rejected_like_any_reply_that_is_not_the_json(
        fixtures_dir: Path, server: ChatServer, tmp_path: Path) -> None:
    folder = _trial(tmp_path / "user_interruption" / "1")
    server.replies = [(200, deep_array())]
    judge = _judge(fixtures_dir, server, max_attempts=1)
    first, second = judge.judge(_case(folder)), judge.judge(_case(folder))
    assert (first.label, first.reason) == (
        None, "no label in 1 attempts: the reply is not one JSON object: nested deeper than "
              "64 levels at char 64")
    assert second.label == "C_RESPOND"  # the server's default reply, once the deep one is out
