"""Keep credentials out of everything a run writes: options described, agent text scrubbed.

Agent options often carry credentials: a URL with ``user:password@`` or ``?token=``,
handshake ``headers`` (``Authorization: Bearer ...``), a ``start_message`` with a key, an
option named ``api_key``. Reports must say what was run without them. And an agent's own
words can echo them back: an error event that quotes the request, a close reason. So
every transport and every report goes through this one module:

* :meth:`Redactor.describe` is the options with every secret replaced by ``REDACTED``:
  URL userinfo and fragment, URL query values (except a few harmless names such as
  ``model``), every header value (names are kept), and the value of any option whose
  name looks like a credential (``token``, ``secret``, ``password``, ``signature``,
  ``auth``, ``credential``, ``cookie``, ``api_key``, ``key``, ...), at any depth of a map
  or of a JSON object given as text.
* :meth:`Redactor.scrub` replaces, in any text, those secret values and the values of
  the environment variables that hold keys: the variable an option ending in ``_env``
  names (``api_key_env``) and every variable whose name looks like a credential
  (``OPENAI_API_KEY``, ``MY_TOKEN``, ...), which covers a transport's default key
  variable. Environment values are read when scrubbing, never stored, so a transport
  holding a Redactor does not hold its key. Values shorter than
  :data:`MIN_SECRET_CHARS` are not searched for (they would match ordinary words such
  as ``true``); they are still left out of the description.

The same secrets reach other systems under test than agents: the key an ASR server, a
judge or a ``command`` system is given, and the options of the agent a run records. So
every text such a system returns passes through one :class:`Scrubber` that knows all the
secrets of the run (:func:`run_scrubber`) before it is written or printed: transcript
events, fault reasons, ``/v1/models`` answers, recognised words, raw answers, judge
replies, a program's output. A program the run starts sees only the environment
variables its configuration names (:func:`child_environment`), so it cannot print a key
it was never meant to have.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

REDACTED = "REDACTED"
MIN_SECRET_CHARS = 6
# Query parameters whose values are settings, not credentials (kept in descriptions).
SAFE_QUERY_NAMES = frozenset({"model", "voice", "language", "lang", "sample_rate", "rate",
                              "format", "encoding", "api-version", "deployment", "intent",
                              "mode"})
_SECRET_WORDS = ("token", "secret", "passw", "pwd", "signature", "auth", "credential",
                 "cookie", "apikey", "accesskey", "privatekey", "secretkey", "sessionkey")
_SECRET_NAMES = frozenset({"key", "sig", "pass"})
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
BASE_ENVIRONMENT = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ")
"""What every child process is given of this process's environment: where programs are,
the home folder, the locale, the scratch folder and the time zone. No key variable."""


def is_secret_name(name: str) -> bool:
    """Whether an option, field or variable of this name holds a credential.

    Names ending in ``_env`` name an environment variable and are not secret themselves.

    >>> [is_secret_name(n) for n in ("api_key", "X-Auth-Token", "api_key_env", "model")]
    [True, True, False, False]
    """
    lowered = name.lower()
    if lowered.endswith("_env"):
        return False
    flat = re.sub(r"[^a-z0-9]", "", lowered)
    return flat in _SECRET_NAMES or any(word in flat for word in _SECRET_WORDS)


def _is_headers(name: str) -> bool:
    return name.lower().replace("-", "_").endswith("headers")


def redact_url(url: str) -> str:
    """The URL with its credentials replaced (see :func:`describe_url`).

    >>> redact_url("wss://user:pw@host:9/v1/realtime?model=m&token=abc")
    'wss://REDACTED@host:9/v1/realtime?model=m&token=REDACTED'
    """
    return describe_url(url)[0]


def describe_url(url: str) -> tuple[str, list[str]]:
    """(the URL with userinfo, fragment and non-harmless query values replaced, the
    secret values found, in the forms a server might echo them). A URL too broken to
    take apart is a secret as a whole."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED, [url]
    secrets: list[str] = []
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        plain = unquote(userinfo)
        # a WebSocket client sends userinfo as HTTP basic auth: base64 of user:password
        secrets += [userinfo, plain, base64.b64encode(plain.encode()).decode("ascii"),
                    *(unquote(part) for part in userinfo.split(":"))]
        netloc = f"{REDACTED}@{host}"
    query = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name.lower() not in SAFE_QUERY_NAMES and value:
            secrets.append(value)
            value = REDACTED
        query.append((name, value))
    if parts.fragment:
        secrets.append(unquote(parts.fragment))
    described = urlunsplit((parts.scheme, netloc, parts.path, urlencode(query),
                            REDACTED if parts.fragment else ""))
    return described, secrets


class Redactor:
    """Describe agent options without their secrets, and scrub secrets out of text."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self._secrets: list[str] = []
        self._description = {str(key): self._walk(str(key), value, secret=False)
                             for key, value in sorted(options.items())}
        self._env_names = sorted({str(value) for key, value in options.items()
                                  if str(key).lower().endswith("_env") and value})

    def describe(self) -> dict[str, Any]:
        """The options as JSON-ready data, every secret replaced by ``REDACTED``."""
        # a fresh copy each time; values YAML made (dates) become text
        return json.loads(json.dumps(self._description, default=str))  # type: ignore[no-any-return]

    def scrub(self, text: str) -> str:
        """``text`` with every known secret (and its URL- and JSON-escaped forms) replaced.

        >>> Redactor({"url": "ws://h/?token=abc123xyz"}).scrub("bad token abc123xyz")
        'bad token REDACTED'
        """
        return self.scrubber()(text)

    def scrubber(self) -> Scrubber:
        """:meth:`scrub` with the secrets looked up once, for scrubbing many texts."""
        return Scrubber(self.secret_values())

    def secret_values(self) -> list[str]:
        """The secrets of the options and the values of the key variables, as they are
        now (read from the environment at each call, never kept)."""
        names = set(self._env_names) | {name for name in os.environ if is_secret_name(name)}
        return [*self._secrets,
                *(os.environ[name] for name in sorted(names) if os.environ.get(name))]

    def _walk(self, key: str, value: Any, secret: bool) -> Any:
        """The described value; secrets found on the way are remembered for scrubbing."""
        secret = secret or is_secret_name(key)
        if isinstance(value, Mapping):
            inner = secret or _is_headers(key)
            return {str(k): self._walk(str(k), v, inner) for k, v in sorted(value.items())}
        if isinstance(value, list | tuple):
            return [self._walk(key, item, secret) for item in value]
        if secret:
            if value is not None and not isinstance(value, bool):
                text = str(value)
                self._secrets += [text, *text.split()[-1:]]  # "Bearer KEY": KEY alone too
            return REDACTED
        if isinstance(value, str):
            return self._walk_text(key, value)
        return value

    def _walk_text(self, key: str, value: str) -> Any:
        if _URL.match(value.strip()):
            described, secrets = describe_url(value.strip())
            self._secrets += secrets
            return described
        if value.lstrip().startswith("{"):
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError:
                parsed = None
            if isinstance(parsed, dict):
                return json.dumps(self._walk(key, parsed, secret=False), sort_keys=True)
        if _is_headers(key):
            self._secrets.append(value)  # headers in a form we cannot read: all secret
            return REDACTED
        return value


class Scrubber:
    """Replaces secrets, in every form a server echoes them (as they are, URL-encoded,
    JSON-escaped), by ``REDACTED`` in text, in bytes and in JSON-like data.

    >>> scrub = Scrubber(["sk-abc123"])
    >>> scrub("key sk-abc123"), scrub.data({"words": ["sk-abc123"]}), scrub.raw(b"sk-abc123")
    ('key REDACTED', {'words': ['REDACTED']}, b'REDACTED')
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        forms: set[str] = set()
        for value in secrets:
            forms |= {value, quote(value, safe=""), json.dumps(value)[1:-1]}
        # longest first, so a secret containing another is replaced whole
        self._forms = sorted((f for f in forms if len(f) >= MIN_SECRET_CHARS),
                             key=lambda f: (-len(f), f))
        self._encoded = [form.encode("utf-8") for form in self._forms]

    def __call__(self, text: str) -> str:
        for secret in self._forms:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def raw(self, data: bytes) -> bytes:
        """``data``, a raw answer as received, with the UTF-8 forms of the secrets replaced."""
        for secret in self._encoded:
            if secret in data:
                data = data.replace(secret, REDACTED.encode("ascii"))
        return data

    def data(self, value: Any) -> Any:
        """``value`` with every text in it scrubbed, map keys too, at any depth."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, Mapping):
            return {self.data(key): self.data(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.data(item) for item in value]
        return value


def run_scrubber(*options: Mapping[str, Any], env: Iterable[str] = ()) -> Scrubber:
    """One scrubber for all the secrets a run knows: those of each options map (an
    agent's, see :class:`Redactor`), the values of the variables named by ``env`` (the
    key variables of a recogniser, a judge, a program), and every variable whose name
    says it holds a credential.

    >>> run_scrubber({"url": "ws://h/?token=tok-778899"}, {"api_key": "sk-doctest-42"})(
    ...     "tok-778899 and sk-doctest-42")
    'REDACTED and REDACTED'
    """
    values = [value for given in options for value in Redactor(given).secret_values()]
    values += [os.environ[name] for name in sorted(set(env)) if os.environ.get(name)]
    values += Redactor({}).secret_values()
    return Scrubber(values)


def child_environment(names: Iterable[str]) -> dict[str, str]:
    """The environment of a program the run starts: :data:`BASE_ENVIRONMENT` and the
    variables its configuration names, those that are set; nothing else of this process
    (no key variable it was not given)."""
    wanted = [*BASE_ENVIRONMENT, *names]
    return {name: os.environ[name] for name in wanted if name in os.environ}
