"""A chat model behind any OpenAI-compatible ``POST /chat/completions`` endpoint.

One request per prompt, ``temperature`` 0 unless set, the answer's
``choices[0].message.content`` is the model's answer. What comes back is kept whole as the
reply's *stdout* (the response body as received, cut or not) and every failure on the
way as its *stderr*, so an unusable answer can be read later. Retries follow
:mod:`speecheval.remote.retry`; HTTP 401/403 is a reply that stops the run
(:attr:`ChatReply.stop`: the key is wrong for every prompt); anything else leaves this
prompt without an answer. The key comes from an environment variable and is never
recorded; every reply is scrubbed of it and of the run's other secrets.

The arbitration judges (:class:`speecheval.transcripts.arbitrate.judges.ChatJudge`) and
the session task judge (:mod:`speecheval.session.metrics.task_judge`) are chat models.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from ..core import peer_json
from ..core.redact import Scrubber, run_scrubber
from .answers import NoTextContent, completion
from .endpoint import EndpointSettings, KeyRefused, OpenAIEndpoint, Rejected
from .retry import GaveUp, Retry

ENDPOINT_PATH = "/chat/completions"


@dataclass(frozen=True)
class ChatSettings(EndpointSettings):
    """A chat model's endpoint and the sampling temperature of its requests."""

    path: ClassVar[str] = ENDPOINT_PATH
    temperature: float = 0.0


@dataclass(frozen=True)
class ChatReply:
    """What a chat model (or a judge program) returned for one prompt."""

    content: str | None
    """The answer text, ``None`` when no answer came."""
    stdout: str
    stderr: str
    model_reported: str | None
    attempts: int
    stop: str | None = None
    """Why no prompt should be sent again (a refused key, a program that cannot be
    started: every other request would fail the same way), ``None`` otherwise."""

    def scrubbed(self, scrub: Scrubber) -> ChatReply:
        """A copy with every text the model sent (and every reason quoting it) scrubbed."""
        return replace(self, content=None if self.content is None else scrub(self.content),
                       stdout=scrub(self.stdout), stderr=scrub(self.stderr),
                       model_reported=None if self.model_reported is None
                       else scrub(self.model_reported),
                       stop=None if self.stop is None else scrub(self.stop))


@dataclass(frozen=True)
class ChatModel:
    """A chat model: a name for the report, where to ask, and the key (read by the
    caller from ``settings.api_key_env``)."""

    name: str
    settings: ChatSettings
    key: str = field(default="", repr=False, compare=False)

    @property
    def model(self) -> str:
        return self.settings.model

    @property
    def endpoint(self) -> str:
        return self.settings.endpoint

    def identity(self) -> dict[str, Any]:
        s = self.settings
        return {"name": self.name, "backend": "openai-compatible chat completions",
                "endpoint": self.endpoint, "model": s.model, "temperature": s.temperature,
                "api_key_env": s.api_key_env, "retry": s.retry.identity(),
                "timeout_s": s.timeout_s}

    def ask(self, messages: list[dict[str, str]]) -> ChatReply:
        """Send the prompt; the reply, or why there is none, scrubbed (never raises for
        the server's own faults; a refused key is a reply that stops the run)."""
        s = self.settings
        endpoint = OpenAIEndpoint(s, self.key, run_scrubber({"api_key": self.key},
                                                            env=[s.api_key_env]))
        return self._ask(messages, endpoint).scrubbed(endpoint.scrub)

    def _ask(self, messages: list[dict[str, str]], endpoint: OpenAIEndpoint) -> ChatReply:
        s = self.settings
        body = json.dumps({"model": s.model, "messages": messages,
                           "temperature": s.temperature}).encode()
        failures: list[str] = []

        def failed(attempt: int, failure: Retry) -> None:
            failures.append(f"attempt {attempt}: {failure.reason}")

        def reasons() -> str:
            return endpoint.redact("\n".join(failures))

        try:
            raw = s.retry.run(lambda: endpoint.post(body, "application/json"),
                              failed)
        except GaveUp as gave_up:
            failed(gave_up.attempts, gave_up.last)
            return ChatReply(None, "", reasons(), None, len(failures))
        except Rejected as rejected:
            failures.append(f"attempt {len(failures) + 1}: {rejected.reason}")
            return ChatReply(None, "", reasons(), None, len(failures))
        except KeyRefused as refused:
            failures.append(f"attempt {len(failures) + 1}: HTTP {refused.status}: "
                            f"{refused.detail}")
            return ChatReply(None, "", reasons(), None, len(failures),
                             stop=endpoint.redact(str(refused)))
        attempt = len(failures) + 1  # every attempt before this one failed and was retried
        stdout = raw.decode("utf-8", "replace")
        content, model, problem = _content(stdout)
        if problem is None:
            return ChatReply(content, stdout, reasons(), model, attempt)
        failures.append(f"attempt {attempt}: {problem}")
        return ChatReply(None, endpoint.redact(stdout), reasons(), None, len(failures))


def _content(body: str) -> tuple[str | None, str | None, str | None]:
    """``(message content, model the server names, problem)`` of a chat completion body."""
    try:
        content, model = completion(peer_json.loads(body))
    except peer_json.PeerJSONLimit as exc:
        return None, None, f"the answer is not JSON: {exc.reason}"
    except NoTextContent:
        return None, None, "choices[0].message.content is not text"
    except ValueError:
        return None, None, "the answer is not a chat completion with choices[0].message.content"
    return content, model, None
