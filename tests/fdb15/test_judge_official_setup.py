"""The rule that calls a judged run official: official prompt hash, official model reported
on every reply, host api.openai.com; each unmet condition one reason."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from speecheval.fdb.v15.judge.official_setup import (
    OFFICIAL_PROMPT_SHA256,
    host_class,
    officiality,
)

PROMPT = "fdb-official-evaluator/v1_v1.5/evaluation/instruction/behavior.txt"
MODEL = "gpt-4o-2024-08-06"


def test_the_official_hash_is_the_official_prompt_files(fixtures_dir: Path) -> None:
    text = (fixtures_dir / PROMPT).read_text(encoding="utf-8")
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == OFFICIAL_PROMPT_SHA256


@pytest.mark.parametrize(("url", "expected"), [
    ("https://api.openai.com/v1", "openai"),
    ("https://api.openai.com", "openai"),
    ("https://Api.OpenAI.com:443/v1/", "openai"),
    ("https://api.openai.com./v1", "openai"),
    ("http://127.0.0.1:8000/v1", "other"),
    ("http://localhost/v1", "other"),
    ("https://api.openai.com.example.net/v1", "other"),
    ("https://openai.azure.com/openai/deployments/gpt-4o", "other"),
    ("https://user@proxy.example/api.openai.com/v1", "other"),
])
def test_host_class(url: str, expected: str) -> None:
    assert host_class(url) == expected


def test_all_three_matching_is_official() -> None:
    verdict = officiality(OFFICIAL_PROMPT_SHA256, [MODEL], "openai")
    assert verdict.official is True and verdict.reasons == () and verdict.note is None


def test_each_condition_alone_makes_it_not_official() -> None:
    other_prompt = hashlib.sha256(b"label it\n").hexdigest()
    cases = {
        "prompt": officiality(other_prompt, [MODEL], "openai"),
        "model": officiality(OFFICIAL_PROMPT_SHA256, ["gpt-4o-mini"], "openai"),
        "mixed models": officiality(OFFICIAL_PROMPT_SHA256, [MODEL, "gpt-4o"], "openai"),
        "no reply": officiality(OFFICIAL_PROMPT_SHA256, [], "openai"),
        "a reply without a model": officiality(OFFICIAL_PROMPT_SHA256, [MODEL, None],
                                               "openai"),
        "host": officiality(OFFICIAL_PROMPT_SHA256, [MODEL], "other"),
    }
    assert {name: v.official for name, v in cases.items()} == dict.fromkeys(cases, False)
    assert cases["prompt"].reasons == (
        f"the prompt's SHA-256 {other_prompt[:12]}... is not the official 19e5477dac9a...",)
    assert cases["model"].reasons == (
        "the endpoint reported the model gpt-4o-mini; the official model is "
        "gpt-4o-2024-08-06",)
    assert cases["mixed models"].reasons == (
        "the endpoint reported the model gpt-4o-2024-08-06, gpt-4o; the official model is "
        "gpt-4o-2024-08-06",)
    assert cases["no reply"].reasons == ("the endpoint reported no model (no reply)",)
    assert cases["a reply without a model"].reasons == ("a reply named no model",)
    assert cases["host"].reasons == ("the endpoint is not api.openai.com (host class other)",)


def test_every_unmet_condition_is_named() -> None:
    verdict = officiality("0" * 64, ["m"], "other")
    assert len(verdict.reasons) == 3
    assert verdict.note == "; ".join(verdict.reasons)
