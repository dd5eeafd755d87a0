"""Judges: behind any OpenAI-compatible ``POST /v1/chat/completions`` endpoint, or a
program (:class:`CommandJudge`).

One request per sample, ``temperature`` 0, the answer's ``choices[0].message.content`` is
the judge's answer. What comes back is kept whole as the judge's *stdout* (the response
body as received, cut or not) and every failure on the way as its *stderr*, so an
invalid judgement can be read later. A chat judge is a :class:`speecheval.remote.chat.
ChatModel`, so retries follow the rules of every remote model (:mod:`speecheval.remote`):
HTTP 429 and 5xx, dropped or cut answers and timeouts are retried with doubling waits, at
most ``max_attempts`` in all; HTTP 401/403 stops the run (the key is wrong for every
sample: :attr:`JudgeReply.stop`); anything else makes this judge invalid for this sample.
The key comes from an environment variable and is never recorded.

Every reply is scrubbed of the secrets the judge knows before anyone reads it (its key,
the variables it is given, every variable whose name says it holds a credential; see
:func:`speecheval.core.redact.run_scrubber`): a judge that echoes its request, or a
program that prints its environment, leaves ``REDACTED`` in the files and on the
console. A judge program is given only a minimal environment and the variables named
for it (:func:`speecheval.core.redact.child_environment`).
"""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass
from typing import Any, Protocol

from ...core.errors import InputError
from ...core.redact import child_environment, run_scrubber
from ...remote.chat import ChatModel, ChatReply, ChatSettings
from ...remote.keys import NOT_HTTP, api_key, base_url_problem, unset_key
from .inputs import SAFE_ID

JudgeReply = ChatReply
"""What one judge returned for one prompt (a chat model's reply, or a program's)."""

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
class ChatJudge(ChatModel):
    """A judge that is a chat model: a name for the report and where to ask (base URL,
    model, key variable, temperature, retries, timeout)."""

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
        key = api_key(api_key_env, unset_key("judges read their", api_key_env,
                                             "--api-key-env"))
        return cls(name, ChatSettings(base_url, model, api_key_env, **retries), key=key)


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
