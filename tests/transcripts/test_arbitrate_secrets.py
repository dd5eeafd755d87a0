"""``transcripts arbitrate`` keeps every secret out of its files and streams, and a judge
program sees only the variables named for it.

Two judges answer every sample: a chat endpoint whose completion (content and model) is
the request it received, the ``Authorization: Bearer <key>`` header included, and a
judge program that prints its whole environment as its answer and on stderr (see
:mod:`hostile.echo_secrets`). Neither answer is a valid judgement, so both are kept and
quoted as judges' invalid answers.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hostile.echo_secrets import CANARIES, PROGRAM, echo_http, leaked

from speecheval.cli import main

KEY_VARIABLE = "SPEECHEVAL_JUDGE_VARIABLE"  # --api-key-env (not a secret name)
GIVEN = "SPEECHEVAL_GIVEN_VARIABLE"  # --judge-env (not a secret name)
NOT_GIVEN = "SPEECHEVAL_CANARY_TOKEN"  # a key variable of this process, named by nobody
BASE = {"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"}


def test_echoing_judges_leave_no_secret_and_programs_get_only_named_variables(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(KEY_VARIABLE, CANARIES.header_key)
    monkeypatch.setenv(GIVEN, CANARIES.query_token)
    monkeypatch.setenv(NOT_GIVEN, CANARIES.env_key)
    refs, cands = tmp_path / "refs.jsonl", tmp_path / "cands.jsonl"
    refs.write_text(json.dumps({"sample": "ep1", "reference": "hello there",
                                "independent": True}) + "\n", encoding="utf-8")
    cands.write_text("".join(json.dumps({"sample": "ep1", "system": system, "text": text})
                             + "\n" for system, text in (("a", "hello there"), ("b", "hello"))),
                     encoding="utf-8")
    out = tmp_path / "arb"
    with echo_http() as server:
        code = main(["transcripts", "arbitrate", "--references", str(refs), "--candidates",
                     str(cands), "--out", str(out), "--api-key-env", KEY_VARIABLE,
                     "--max-attempts", "1", "--judge", f"chat=m@{server.url}",
                     "--judge-command", f"program={sys.executable} {PROGRAM}",
                     "--judge-env", GIVEN])
    printed = capfd.readouterr()
    assert code == 0, printed.err
    written = "".join(p.read_bytes().decode("latin-1") for p in sorted(out.rglob("*"))
                      if p.is_file())
    assert not leaked(written + printed.out + printed.err)
    # the chat judge answered with its request, the key it was sent replaced
    chat = (out / "judges" / "chat" / "ep1.stdout").read_text()
    assert "Authorization: Bearer REDACTED" in chat
    judgements = {j["judge"]: j for j in map(json.loads, (out / "judgements.jsonl")
                                             .read_text().splitlines())}
    assert judgements["chat"]["model_reported"].startswith("echo request /v1/chat/completions")
    assert judgements["chat"]["valid"] is False and judgements["program"]["valid"] is False
    # the program saw the base environment and the variable named for it, nothing else
    seen = dict(line.split("=", 1) for line in
                (out / "judges" / "program" / "ep1.stdout").read_text().splitlines())
    assert set(seen) <= {*BASE, GIVEN} and "PATH" in seen
    assert seen[GIVEN] == "REDACTED"
    identity = json.loads((out / "arbitration.json").read_text())["judges"]
    assert identity[1]["env"] == [GIVEN]
