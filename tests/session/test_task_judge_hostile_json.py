"""The session task judge against replies nested 200,000 levels deep, in the message
content or in the HTTP body: the session's task entry names the problem, and the next
session of the run is judged as usual (no RecursionError stops ``session run``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from hostile.deep_json import JsonAnswerServer, deep_array

from speecheval.cli import main

from .test_task_judge import _key, scenario

__all__ = ["_key"]  # the fixture that sets the judge's key variable, for pytest

VERDICT = json.dumps({"success": True, "reason": "the table is booked"})


def _tasks(tmp_path: Path, base_url: str) -> list[dict[str, Any]]:
    code = main(["session", "run", str(scenario(tmp_path, base_url)), "--repeat", "2",
                 "--out", str(tmp_path / "run")])
    assert code == 1  # the first session's judgement is invalid: the success rate is 1/2
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    return [session["task"] for session in report["sessions"]]


def test_deep_content_is_a_problem_of_its_session_and_the_next_is_judged(
        tmp_path: Path) -> None:
    pytest.importorskip("faster_whisper")
    with ChatServer([(200, deep_array())], answer=lambda _: VERDICT,
                    reported_model="judge-x") as server:
        first, second = _tasks(tmp_path, server.base_url)
    assert first == {"model": "judge-model", "model_reported": "judge-x", "success": None,
                     "reason": None, "attempts": 1,
                     "problem": "the judge's answer is not JSON: nested deeper than 64 "
                                "levels at char 64"}
    assert (second["success"], second["problem"]) == (True, None)


def test_a_deep_body_is_no_answer_with_its_reason(tmp_path: Path) -> None:
    pytest.importorskip("faster_whisper")
    with JsonAnswerServer({"deep": deep_array().encode()}) as hostile:
        code = main(["session", "run", str(scenario(tmp_path, hostile.url("deep"))),
                     "--repeat", "2", "--out", str(tmp_path / "run")])
    assert code == 1
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    problem = ("no answer from the judge: attempt 1: the answer is not JSON: nested deeper "
               "than 64 levels at char 64")
    assert [(s["task"]["success"], s["task"]["problem"]) for s in report["sessions"]] == [
        (None, problem), (None, problem)]
