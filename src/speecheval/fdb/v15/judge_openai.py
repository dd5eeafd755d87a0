"""The official behaviour judge: ``instruction/behavior.txt`` through any OpenAI-compatible
``POST /chat/completions`` endpoint (the paper's model is ``gpt-4o-2024-08-06``).

The request is the official ``eval_behavior.py``'s: the prompt file as the system message,
the four transcripts (``clean_input.json``, ``input.json``, ``clean_output.json``,
``output.json``, each as compact JSON) in the script's user message, ``seed`` 1 and one
more on every retry. Where the official script retries without end and takes the first
``{...}`` holding ``behaviour`` anywhere in the reply, here:

- the reply must be exactly one JSON object ``{"behaviour": ["C_..."]}`` with one of the
  four labels (strict JSON); any other reply is asked again, at most ``max_attempts``
  times in all, then the trial is unlabelled with the reason;
- transport failures are told apart as the project's transcription client does
  (:mod:`speecheval.asr.openai_compatible`): 429, 5xx, refused and dropped connections
  and timeouts are retried within the same bound with a doubling wait; 401 and 403 stop
  the run (exit 2); other answers leave the trial unlabelled with the reason;
- every request (without the key) and every reply or failure goes into the ledger.

The prompt file must be the pinned one (:mod:`..v10.official_evaluator`); the key comes
from an environment variable, and every reply and reason is scrubbed of it and of the
run's other secrets (:func:`speecheval.agents.redact.run_scrubber`) before it reaches the
ledger or a verdict: a judge that echoes its request must not write the key.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...agents.redact import REDACTED, run_scrubber
from ...asr.openai_compatible import (
    RETRIED_STATUS,
    _error_detail,
    _Retry,
    _retry_after,
    check_base_url,
    post_with_key,
    retry_wait_s,
)
from ...core import peer_json
from ...core.errors import InputError
from ...core.hashing import sha256_file
from ..v10.official_evaluator import PINNED_SHA256, REPOSITORY, REVISION
from ..v10.tree import read_json
from .behavior import (
    CLEAN_INPUT_JSON,
    CLEAN_OUTPUT_JSON,
    INPUT_JSON,
    LABELS,
    OUTPUT_JSON,
    JudgeCase,
    Verdict,
)

OFFICIAL_MODEL = "gpt-4o-2024-08-06"
PROMPT_NAME = "v1_v1.5/evaluation/instruction/behavior.txt"
ENDPOINT_PATH = "/chat/completions"


@dataclass(frozen=True)
class JudgeSettings:
    """Where to ask, with which prompt file, and how often to try."""

    base_url: str
    instruction: Path
    model: str = OFFICIAL_MODEL
    api_key_env: str = "OPENAI_API_KEY"
    max_attempts: int = 3
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    timeout_s: float = 120.0

    @property
    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + ENDPOINT_PATH


def user_message(folder: Path, sample_id: str) -> str:
    """The official user message of one trial, byte for byte."""
    def compact(name: str) -> str:
        data = read_json(folder / name, sample_id=sample_id, what=f"transcript {name}")
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    indent = " " * 8
    return (f"\n{indent}{{\n"
            f'{indent}    "input_clean": {compact(CLEAN_INPUT_JSON)},\n'
            f'{indent}    "input_noisy": {compact(INPUT_JSON)},\n'
            f'{indent}    "output_clean": {compact(CLEAN_OUTPUT_JSON)},\n'
            f'{indent}    "output_noisy": {compact(OUTPUT_JSON)}\n'
            f"{indent}}}\n{indent}")


def strict_label(content: str) -> str:
    """The label of a reply that is exactly ``{"behaviour": ["C_..."]}``, or ValueError.

    >>> strict_label('{ "behaviour": ["C_RESUME"] }')
    'C_RESUME'
    >>> strict_label('Sure! {"behaviour": ["C_RESUME"]}')
    Traceback (most recent call last):
    ...
    ValueError: the reply is not one JSON object: Expecting value at 0
    """
    try:
        data = peer_json.loads(content)
    except peer_json.PeerJSONLimit as exc:
        raise ValueError(f"the reply is not one JSON object: {exc.reason}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"the reply is not one JSON object: {exc.msg} at {exc.pos}") from None
    if not isinstance(data, dict) or set(data) != {"behaviour"}:
        raise ValueError('the reply is not an object with the one key "behaviour"')
    labels = data["behaviour"]
    if not (isinstance(labels, list) and len(labels) == 1 and labels[0] in LABELS):
        raise ValueError(f'"behaviour" must list exactly one of {", ".join(LABELS)}, '
                         f"got {json.dumps(labels)[:80]}")
    return str(labels[0])


class _Failed(Exception):
    """The endpoint answered in a way no retry changes; the trial has no label."""


class OpenAIJudge:
    """The official prompt through an OpenAI-compatible endpoint; ``official`` when the
    model is the paper's."""

    def __init__(self, settings: JudgeSettings) -> None:
        check_base_url(settings.base_url)
        if settings.max_attempts < 1:
            raise InputError(f"max_attempts must be at least 1, got {settings.max_attempts}")
        if not settings.instruction.is_file():
            raise InputError("the judge instruction file is missing", path=settings.instruction)
        digest = sha256_file(settings.instruction)
        if digest != PINNED_SHA256[PROMPT_NAME]:
            raise InputError(f"not the pinned official prompt ({PROMPT_NAME} of {REPOSITORY} "
                             f"@ {REVISION}): SHA-256 {digest}", path=settings.instruction)
        key = os.environ.get(settings.api_key_env)
        if not key:
            raise InputError(f"the judge reads its API key from the environment variable "
                             f"{settings.api_key_env}, which is not set (set it, to any value "
                             f"for a server without keys, or name another with "
                             f"--judge-api-key-env)")
        self.settings = settings
        self.official = settings.model == OFFICIAL_MODEL
        self._key = key
        self._scrub = run_scrubber(env=[settings.api_key_env])
        self._prompt = settings.instruction.read_text(encoding="utf-8")
        self._digest = digest
        self.ledger: list[dict[str, Any]] = []
        """Every request, reply and failure, in order (written as behaviour-ledger.jsonl)."""

    def identity(self) -> dict[str, Any]:
        s = self.settings
        return {"judge": "official prompt through an OpenAI-compatible endpoint",
                "official": self.official,
                "note": None if self.official else
                f"the model is {s.model}, not the official {OFFICIAL_MODEL}",
                "endpoint": s.endpoint, "model": s.model,
                "prompt": {"file": PROMPT_NAME, "sha256": self._digest,
                           "repository": REPOSITORY, "revision": REVISION},
                "reply": 'exactly {"behaviour": ["<one label>"]}',
                "seed": "1, plus one on each retry", "api_key_env": s.api_key_env,
                "retry": {"max_attempts": s.max_attempts, "backoff_s": s.backoff_s,
                          "max_backoff_s": s.max_backoff_s,
                          "retried_on": f"{RETRIED_STATUS}, replies that are not the JSON"},
                "timeout_s": s.timeout_s}

    def judge(self, case: JudgeCase) -> Verdict:
        s = self.settings
        messages = [{"role": "system", "content": self._prompt},
                    {"role": "user", "content": user_message(case.folder, case.sample_id)}]
        reason = ""
        for attempt in range(1, s.max_attempts + 1):
            request = {"model": s.model, "messages": messages, "seed": attempt}
            self._log(case.sample_id, attempt, "request", request=request)
            try:
                content = self._scrub(self._content(self._post(request)))
                self._log(case.sample_id, attempt, "reply", content=content)
                return Verdict(strict_label(content), f"judge reply: {content}")
            except ValueError as exc:
                reason = str(exc)
            except _Failed as exc:
                self._log(case.sample_id, attempt, "failed", error=str(exc))
                return Verdict(None, f"the judge failed: {exc}")
            except _Retry as exc:
                reason = exc.reason
                self._log(case.sample_id, attempt, "error", error=reason)
                if attempt < s.max_attempts:
                    time.sleep(retry_wait_s(attempt, exc, s.backoff_s, s.max_backoff_s))
                continue
            self._log(case.sample_id, attempt, "rejected", error=reason)
        self._log(case.sample_id, s.max_attempts, "gave_up", error=reason)
        return Verdict(None, f"no label in {s.max_attempts} attempts: {reason}")

    def _log(self, sample_id: str, attempt: int, event: str, **fields: Any) -> None:
        self.ledger.append({"sample_id": sample_id, "attempt": attempt, "event": event,
                            **fields})

    def _post(self, request: dict[str, Any]) -> bytes:
        s = self.settings
        try:
            return self._scrub.raw(post_with_key(
                s.endpoint, json.dumps(request).encode("utf-8"), "application/json",
                self._key, s.timeout_s))
        except _Retry as failure:
            raise _Retry(self._scrub(failure.reason), failure.wait_s) from None
        except urllib.error.HTTPError as error:
            detail = self._scrub(_error_detail(error).replace(self._key, REDACTED))
            if error.code in (401, 403):
                raise InputError(f"{s.endpoint} refused the API key from {s.api_key_env} "
                                 f"(HTTP {error.code}): {detail}") from None
            if error.code == 429 or error.code >= 500:
                raise _Retry(f"HTTP {error.code}: {detail}", _retry_after(error)) from None
            raise _Failed(f"HTTP {error.code}: {detail}") from None

    @staticmethod
    def _content(body: bytes) -> str:
        """``choices[0].message.content`` of a chat completion, or why it has none."""
        try:
            data = peer_json.loads(body.decode("utf-8"))
            content = data["choices"][0]["message"]["content"]
        except peer_json.PeerJSONLimit as exc:
            raise _Failed(f"the answer is not JSON ({len(body)} bytes, {exc.reason})"
                          ) from None
        except (UnicodeDecodeError, ValueError, KeyError, IndexError, TypeError):
            raise _Failed(f"the answer is not a chat completion ({len(body)} bytes)"
                          ) from None
        if not isinstance(content, str):
            raise _Failed("the completion has no text content")
        return content
