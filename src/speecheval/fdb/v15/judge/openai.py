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
- transport failures are told apart as for every remote model
  (:mod:`speecheval.remote.endpoint`): 429, 5xx, refused and dropped connections and
  timeouts are retried within the same bound with a doubling wait; 401 and 403 stop the
  run (exit 2); other answers leave the trial unlabelled with the reason;
- every request (without the key) and every reply or failure goes into the ledger
  (:class:`speecheval.remote.ledger.RequestLedger`).

Whether the run is official is decided from what it observed (:mod:`.official_setup`: the
prompt's SHA-256, the model every reply named, the base URL's host class), never from the
model asked for alone; :meth:`OpenAIJudge.identity` records the three and the verdict.

The prompt file must be the pinned one (:mod:`...common.official_evaluator`); the key comes
from an environment variable, and every reply and reason is scrubbed of it and of the
run's other secrets (:func:`speecheval.core.redact.run_scrubber`) before it reaches the
ledger or a verdict: a judge that echoes its request must not write the key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ....core import peer_json
from ....core.errors import InputError
from ....core.hashing import sha256_bytes, sha256_file
from ....core.redact import run_scrubber
from ....remote import answers
from ....remote.chat import ENDPOINT_PATH
from ....remote.endpoint import EndpointSettings, OpenAIEndpoint, Rejected
from ....remote.keys import api_key, unset_key
from ....remote.ledger import RequestLedger
from ....remote.retry import RETRIED_STATUS, Retry
from ...common.official_evaluator import PINNED_SHA256, REPOSITORY, REVISION
from ...common.tree import read_json
from .behavior import (
    CLEAN_INPUT_JSON,
    CLEAN_OUTPUT_JSON,
    INPUT_JSON,
    LABELS,
    OUTPUT_JSON,
    JudgeCase,
    Verdict,
)
from .official_setup import OFFICIAL_MODEL, PROMPT_NAME, Officiality, host_class, officiality


@dataclass(frozen=True)
class JudgeSettings(EndpointSettings):
    """Where to ask, with which prompt file, and how often to try."""

    path: ClassVar[str] = ENDPOINT_PATH
    model: str = OFFICIAL_MODEL
    max_attempts: int = 3
    timeout_s: float = 120.0
    instruction: Path = field(kw_only=True)


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
    """The official prompt through an OpenAI-compatible endpoint; ``official`` only when the
    run observed the official setup (:mod:`.official_setup`)."""

    def __init__(self, settings: JudgeSettings) -> None:
        settings.check()
        if not settings.instruction.is_file():
            raise InputError("the judge instruction file is missing", path=settings.instruction)
        digest = sha256_file(settings.instruction)
        if digest != PINNED_SHA256[PROMPT_NAME]:
            raise InputError(f"not the pinned official prompt ({PROMPT_NAME} of {REPOSITORY} "
                             f"@ {REVISION}): SHA-256 {digest}", path=settings.instruction)
        key = api_key(settings.api_key_env, unset_key(
            "the judge reads its", settings.api_key_env, "--judge-api-key-env"))
        self.settings = settings
        self._endpoint = OpenAIEndpoint(settings, key, run_scrubber(env=[settings.api_key_env]))
        self._prompt = settings.instruction.read_text(encoding="utf-8")
        self._digest = digest
        self._sent_sha256 = sha256_bytes(self._prompt.encode("utf-8"))
        self._host_class = host_class(settings.base_url)
        # the models the replies named, in first-seen order (None: a reply named none)
        self._reported_models: dict[str | None, None] = {}
        self._ledger = RequestLedger()

    def officiality(self) -> Officiality:
        """The run's verdict so far: prompt as sent, models reported, host class."""
        return officiality(self._sent_sha256, list(self._reported_models), self._host_class)

    @property
    def official(self) -> bool:
        return self.officiality().official

    @property
    def ledger(self) -> list[dict[str, Any]]:
        """Every request, reply and failure, in order (written as behaviour-ledger.jsonl)."""
        return self._ledger.entries

    def identity(self) -> dict[str, Any]:
        s = self.settings
        verdict = self.officiality()
        return {"judge": "official prompt through an OpenAI-compatible endpoint",
                "official": verdict.official, "note": verdict.note,
                "endpoint": s.endpoint, "host_class": self._host_class, "model": s.model,
                "model_reported": list(self._reported_models),
                "prompt": {"file": PROMPT_NAME, "sha256": self._digest,
                           "sent_sha256": self._sent_sha256,
                           "repository": REPOSITORY, "revision": REVISION},
                "reply": 'exactly {"behaviour": ["<one label>"]}',
                "seed": "1, plus one on each retry", "api_key_env": s.api_key_env,
                "retry": s.retry.identity(f"{RETRIED_STATUS}, replies that are not the JSON"),
                "timeout_s": s.timeout_s}

    def judge(self, case: JudgeCase) -> Verdict:
        s = self.settings
        messages = [{"role": "system", "content": self._prompt},
                    {"role": "user", "content": user_message(case.folder, case.sample_id)}]
        log = self._ledger.log
        reason = ""
        for attempt in range(1, s.max_attempts + 1):
            request = {"model": s.model, "messages": messages, "seed": attempt}
            log(case.sample_id, attempt, "request", request=request)
            try:
                body = self._endpoint.post(json.dumps(request).encode("utf-8"),
                                           "application/json")
                content, model = self._content(body)
                content = self._endpoint.scrub(content)
                model = None if model is None else self._endpoint.scrub(model)
                self._reported_models.setdefault(model, None)
                log(case.sample_id, attempt, "reply", content=content, model=model)
                return Verdict(strict_label(content), f"judge reply: {content}")
            except ValueError as exc:
                reason = str(exc)
            except (_Failed, Rejected) as exc:
                log(case.sample_id, attempt, "failed", error=str(exc))
                return Verdict(None, f"the judge failed: {exc}")
            except Retry as exc:
                reason = exc.reason
                log(case.sample_id, attempt, "error", error=reason)
                if attempt < s.max_attempts:
                    s.retry.pause(attempt, exc)
                continue
            log(case.sample_id, attempt, "rejected", error=reason)
        log(case.sample_id, s.max_attempts, "gave_up", error=reason)
        return Verdict(None, f"no label in {s.max_attempts} attempts: {reason}")

    @staticmethod
    def _content(body: bytes) -> tuple[str, str | None]:
        """``choices[0].message.content`` of a chat completion and the model it names, or
        why it has no content."""
        try:
            content, model = answers.completion(answers.parse(body))
        except answers.NoTextContent:
            raise _Failed("the completion has no text content") from None
        except peer_json.PeerJSONLimit as exc:
            raise _Failed(answers.not_json(body, exc)) from None
        except ValueError:
            raise _Failed(f"the answer is not a chat completion ({len(body)} bytes)"
                          ) from None
        return content, model
