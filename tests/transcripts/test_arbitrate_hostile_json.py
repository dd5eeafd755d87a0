"""``transcripts arbitrate`` with judges that answer JSON nested 200,000 levels deep, in
the HTTP body or inside the message content: each is an invalid judgement with its
reason, and the careful judge of the same run is counted as usual."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile.deep_json import JsonAnswerServer, deep_array
from hostile.silent_handshake import SilentServer
from test_arbitrate import JudgeServer, rows, server, write_inputs

from speecheval.cli import main

__all__ = ["server"]  # the fixture, imported for pytest

DEEP_BODY = deep_array().encode()
DEEP_CONTENT = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": "m",
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant",
                                                    "content": deep_array()}}]}).encode()


def test_deep_answers_are_invalid_judgements_and_the_run_goes_on(
        server: JudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refs, cands = write_inputs(tmp_path)
    out = tmp_path / "arb"
    with JsonAnswerServer({"body": DEEP_BODY, "content": DEEP_CONTENT}) as hostile:
        code = main(["transcripts", "arbitrate", "--references", str(refs), "--candidates",
                     str(cands), "--out", str(out), "--api-key-env", "JUDGE_KEY",
                     "--max-attempts", "1", "--judge", f"careful=careful@{server.url}",
                     "--judge", f"body=m@{hostile.url('body')}",
                     "--judge", f"content=m@{hostile.url('content')}"])
    assert code == 0
    judgements = {(j["sample"], j["judge"]): j for j in rows(out / "judgements.jsonl")}
    for sample in ("ep1", "ep2"):
        assert judgements[sample, "careful"]["valid"] is True
        body, content = judgements[sample, "body"], judgements[sample, "content"]
        # the body: no answer to judge, the problem in the judge's stderr
        assert (body["valid"], body["invalid_reason"]) == (False, "no answer (see stderr)")
        assert (out / "judges" / "body" / f"{sample}.stderr").read_text() == (
            "attempt 1: the answer is not JSON: nested deeper than 64 levels at char 64")
        # the content: an answer, but no judgement in it
        assert (content["valid"], content["invalid_reason"]) == (
            False, "not JSON: nested deeper than 64 levels at char 64")


def test_a_judge_that_never_answers_is_an_invalid_judgement_per_sample(
        server: JudgeServer, tmp_path: Path) -> None:
    refs, cands = write_inputs(tmp_path)
    out = tmp_path / "arb"
    with SilentServer() as silent:
        code = main(["transcripts", "arbitrate", "--references", str(refs), "--candidates",
                     str(cands), "--out", str(out), "--api-key-env", "JUDGE_KEY",
                     "--max-attempts", "1", "--timeout", "0.5",
                     "--judge", f"careful=careful@{server.url}",
                     "--judge", f"silent=m@{silent.http_url}"])
        endpoint = f"{silent.http_url}/chat/completions"
    assert code == 0
    judgements = {(j["sample"], j["judge"]): j for j in rows(out / "judgements.jsonl")}
    for sample in ("ep1", "ep2"):
        assert judgements[sample, "careful"]["valid"] is True
        silent_one = judgements[sample, "silent"]
        assert (silent_one["valid"], silent_one["invalid_reason"]) == (
            False, "no answer (see stderr)")
        assert (out / "judges" / "silent" / f"{sample}.stderr").read_text() == (
            f"attempt 1: no answer from {endpoint}: timed out")
