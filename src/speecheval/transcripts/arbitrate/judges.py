"""Judges: behind any OpenAI-compatible ``POST /v1/chat/completions`` endpoint, or a
program (:class:`CommandJudge`).

One request per sample, ``temperature`` 0, the answer's ``choices[0].message.content`` is
the judge's answer. What comes back is kept whole as the judge's *stdout* (the response
body as received, cut or not) and every failure on the way as its *stderr*, so an
invalid judgement can be read later. Retries follow the transcription client's rules
(:mod:`speecheval.asr.openai_compatible`): HTTP 429 and 5xx, dropped or cut answers and
timeouts are retried with doubling waits, at most ``max_attempts`` in all; HTTP 401/403
stops the run (the key is wrong for every sample: :attr:`JudgeReply.stop`); anything else
makes this judge invalid for this sample. The key comes from an environment variable and
is never recorded.

Every reply is scrubbed of the secrets the judge knows before anyone reads it (its key,
the variables it is given, every variable whose name says it holds a credential; see
:func:`speecheval.agents.redact.run_scrubber`): a judge that echoes its request, or a
program that prints its environment, leaves ``REDACTED`` in the files and on the
console. A judge program is given only a minimal environment and the variables named
for it (:func:`speecheval.agents.redact.child_environment`).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shlex
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ...agents.redact import REDACTED, Scrubber, child_environment, run_scrubber
from ...asr.openai_compatible import (
    _OPENER,
    NOT_HTTP,
    RETRIED_STATUS,
    OpenAISettings,
    _error_detail,
    _retry_after,
    base_url_problem,
)
from ...core import peer_json
from ...core.errors import InputError
from .inputs import SAFE_ID

ENDPOINT_PATH = "/chat/completions"
_URL_START = re.compile(r"@(?=[A-Za-z][A-Za-z0-9+.-]*://)")
"""The '@' that starts a ``--judge`` URL: the one before a scheme, so that a URL's
userinfo (``http://user:pw@host``) is seen, and refused, as part of the URL."""


class Judge(Protocol):
    """What arbitration needs of a judge."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    def identity(self) -> dict[str, Any]: ...

    def ask(self, messages: list[dict[str, str]]) -> JudgeReply: ...


@dataclass(frozen=True)
class JudgeReply:
    """What one judge returned for one prompt."""

    content: str | None
    """The answer text, ``None`` when no answer came."""
    stdout: str
    stderr: str
    model_reported: str | None
    attempts: int
    stop: str | None = None
    """Why no judge should be asked again (a refused key, a program that cannot be
    started: every other request would fail the same way), ``None`` otherwise."""

    def scrubbed(self, scrub: Scrubber) -> JudgeReply:
        """A copy with every text the judge sent (and every reason quoting it) scrubbed."""
        return replace(self, content=None if self.content is None else scrub(self.content),
                       stdout=scrub(self.stdout), stderr=scrub(self.stderr),
                       model_reported=None if self.model_reported is None
                       else scrub(self.model_reported),
                       stop=None if self.stop is None else scrub(self.stop))


@dataclass(frozen=True)
class ChatJudge:
    """A judge: a name for the report and where to ask (the transcription client's
    settings: base URL, model, key variable, temperature, retries, timeout)."""

    name: str
    settings: OpenAISettings
    _key: str = field(default="", repr=False, compare=False)

    @classmethod
    def parse(cls, text: str, api_key_env: str, **retries: Any) -> ChatJudge:
        """``NAME=MODEL@BASE_URL`` (``judge1=qwen2.5-7b@http://127.0.0.1:8000/v1``)."""
        name, _, rest = text.partition("=")
        start = _URL_START.search(rest)
        model, base_url = ((rest[:start.start()], rest[start.end():]) if start is not None
                           else rest.rpartition("@")[::2])
        if not name or not model or not base_url:
            raise InputError(f"--judge {text!r}: expected NAME=MODEL@BASE_URL")
        _check_name(name, "--judge", text)
        problem = base_url_problem(base_url)
        if problem == NOT_HTTP:
            raise InputError(f"--judge {name}: the URL after '@' {problem}")
        if problem is not None:
            # not echoed: the query or userinfo may be the very secret
            raise InputError(f"--judge {name}: the URL after '@' {problem} (it is recorded "
                             f"in arbitration.json); the judges' API key comes from the "
                             f"environment variable {api_key_env}, named by --api-key-env")
        key = os.environ.get(api_key_env)
        if not key:
            raise InputError(f"judges read their API key from the environment variable "
                             f"{api_key_env}, which is not set (set it, to any value for a "
                             f"server without keys, or name another with --api-key-env)")
        return cls(name, OpenAISettings(base_url, model, api_key_env, **retries), _key=key)

    @property
    def model(self) -> str:
        return self.settings.model

    @property
    def endpoint(self) -> str:
        return self.settings.base_url.rstrip("/") + ENDPOINT_PATH

    def identity(self) -> dict[str, Any]:
        s = self.settings
        return {"name": self.name, "backend": "openai-compatible chat completions",
                "endpoint": self.endpoint, "model": s.model, "temperature": s.temperature,
                "api_key_env": s.api_key_env,
                "retry": {"max_attempts": s.max_attempts, "backoff_s": s.backoff_s,
                          "max_backoff_s": s.max_backoff_s, "retried_on": RETRIED_STATUS},
                "timeout_s": s.timeout_s}

    def ask(self, messages: list[dict[str, str]]) -> JudgeReply:
        """Send the prompt; the reply, or why there is none, scrubbed (never raises for
        the judge's own faults; a refused key is a reply that stops the run)."""
        return self._ask(messages).scrubbed(run_scrubber({"api_key": self._key},
                                                         env=[self.settings.api_key_env]))

    def _ask(self, messages: list[dict[str, str]]) -> JudgeReply:
        s = self.settings
        body = json.dumps({"model": s.model, "messages": messages,
                           "temperature": s.temperature}).encode()
        failures: list[str] = []
        stdout = ""
        for attempt in range(1, s.max_attempts + 1):
            outcome = self._post(body)
            if isinstance(outcome, bytes):
                stdout = outcome.decode("utf-8", "replace")
                content, model, problem = _content(stdout)
                if problem is None:
                    return JudgeReply(content, stdout, self._redact("\n".join(failures)),
                                      model, attempt)
                failures.append(f"attempt {attempt}: {problem}")
                break
            reason, retry, wait, stop = outcome
            failures.append(f"attempt {attempt}: {reason}")
            if stop is not None:
                return JudgeReply(None, "", self._redact("\n".join(failures)), None, attempt,
                                  stop=self._redact(stop))
            if not retry or attempt == s.max_attempts:
                break
            delay = s.backoff_s * 2 ** (attempt - 1)
            time.sleep(min(max(delay, wait or 0.0), s.max_backoff_s))
        return JudgeReply(None, self._redact(stdout), self._redact("\n".join(failures)), None,
                          len(failures))

    def _post(self, body: bytes) -> bytes | tuple[str, bool, float | None, str | None]:
        """The 2xx body, or ``(reason, worth retrying, server's wait, why the run stops)``
        (the last is for a refused key, ``None`` otherwise)."""
        request = urllib.request.Request(
            self.endpoint, data=body, method="POST",
            headers={"Content-Type": "application/json", "Accept": "application/json",
                     "Authorization": f"Bearer {self._key}"})
        try:
            with _OPENER.open(request, timeout=self.settings.timeout_s) as answer:
                data: bytes = answer.read()
                return data
        except urllib.error.HTTPError as error:
            detail = _error_detail(error)
            if error.code in (401, 403):
                return (f"HTTP {error.code}: {detail}", False, None,
                        f"{self.endpoint} refused the API key from "
                        f"{self.settings.api_key_env} (HTTP {error.code}): {detail}")
            return (f"HTTP {error.code}: {detail}", error.code == 429 or error.code >= 500,
                    _retry_after(error), None)
        except http.client.IncompleteRead as exc:
            return f"the answer was cut off after {len(exc.partial)} bytes", True, None, None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
            return (f"no answer from {self.endpoint}: {reason or type(exc).__name__}", True,
                    None, None)

    def _redact(self, text: str) -> str:
        return text.replace(self._key, REDACTED) if self._key else text


def _content(body: str) -> tuple[str | None, str | None, str | None]:
    """``(message content, model the server names, problem)`` of a chat completion body."""
    try:
        data: Any = peer_json.loads(body)
        content = data["choices"][0]["message"]["content"]
    except peer_json.PeerJSONLimit as exc:
        return None, None, f"the answer is not JSON: {exc.reason}"
    except (ValueError, KeyError, IndexError, TypeError):
        return None, None, "the answer is not a chat completion with choices[0].message.content"
    if not isinstance(content, str):
        return None, None, "choices[0].message.content is not text"
    model = data.get("model") if isinstance(data, dict) else None
    return content, model if isinstance(model, str) else None, None


@dataclass(frozen=True)
class CommandJudge:
    """A judge that is a program (an agent CLI): the prompt on its standard input, the
    answer on its standard output; both output streams are kept as they came.

    One attempt per sample: a program that exits non-zero, or runs past ``timeout_s``, is
    an invalid judgement with its exit status or the timeout in stderr. A program that
    cannot be started stops the run (it would fail every sample: :attr:`JudgeReply.stop`).
    The program sees the minimal environment and the variables ``env`` names.
    """

    name: str
    argv: tuple[str, ...]
    timeout_s: float = 300.0
    env: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str, timeout_s: float, env: tuple[str, ...] = ()) -> CommandJudge:
        """``NAME=COMMAND LINE`` (split as a POSIX shell would, without running one)."""
        name, _, command = text.partition("=")
        try:
            argv = tuple(shlex.split(command))
        except ValueError as exc:
            raise InputError(f"--judge-command {text!r}: {exc}") from None
        if not name or not argv:
            raise InputError(f"--judge-command {text!r}: expected NAME=COMMAND")
        _check_name(name, "--judge-command", text)
        return cls(name, argv, timeout_s, env)

    @property
    def model(self) -> str:
        return shlex.join(self.argv)

    def identity(self) -> dict[str, Any]:
        # the variables' names only, and only when given (the identity names the output)
        given = {"env": list(self.env)} if self.env else {}
        return {"name": self.name, "backend": "command", "argv": list(self.argv),
                "stdin": "the system message, a blank line, the user message",
                "timeout_s": self.timeout_s, **given}

    def ask(self, messages: list[dict[str, str]]) -> JudgeReply:
        """Run the program on the prompt; its answer and output streams, scrubbed."""
        return self._ask(messages).scrubbed(run_scrubber(env=self.env))

    def _ask(self, messages: list[dict[str, str]]) -> JudgeReply:
        prompt = "\n\n".join(m["content"] for m in messages)
        try:
            done = subprocess.run(self.argv, input=prompt, capture_output=True, text=True,
                                  encoding="utf-8", errors="replace", timeout=self.timeout_s,
                                  check=False, env=child_environment(self.env))
        except FileNotFoundError:
            return self._cannot_start("not found")
        except OSError as exc:  # not executable, not a program: it would fail every sample
            return self._cannot_start(str(exc.strerror or exc))
        except subprocess.TimeoutExpired as exc:
            return JudgeReply(None, _text(exc.stdout), _text(exc.stderr) +
                              f"\n[speecheval] timed out after {self.timeout_s} s", None, 1)
        if done.returncode != 0:
            return JudgeReply(None, done.stdout, done.stderr +
                              f"\n[speecheval] exit status {done.returncode}", None, 1)
        return JudgeReply(done.stdout, done.stdout, done.stderr, None, 1)

    def _cannot_start(self, problem: str) -> JudgeReply:
        reason = f"judge {self.name}: cannot run {self.argv[0]!r}: {problem}"
        return JudgeReply(None, "", f"[speecheval] {reason}", None, 1, stop=reason)


def _check_name(name: str, option: str, text: str) -> None:
    """A judge's name names its folder of the output (``judges/<name>/``): letters,
    digits, '.', '_' or '-' only, so it stays a folder of the output (``../x`` would write
    outside it, and not atomically)."""
    if not SAFE_ID.fullmatch(name):
        raise InputError(f"{option} {text!r}: the judge name must be letters, digits, '.', "
                         f"'_' or '-' (it names the judge's folder), got {name!r}")


def _text(stream: str | bytes | None) -> str:
    """A stream ``TimeoutExpired`` kept (bytes even in text mode), as text."""
    if stream is None:
        return ""
    return stream.decode("utf-8", "replace") if isinstance(stream, bytes) else stream
