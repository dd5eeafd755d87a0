"""A transcription server that speaks OpenAI's ``POST /v1/audio/transcriptions``.

Each track is sent as a 16 kHz mono 16-bit WAV in a multipart form with ``model``,
``response_format=verbose_json`` and ``timestamp_granularities[]=word``, and the answer's
``words`` (``{"word", "start", "end"}`` in seconds) become the timed words. The server
may be OpenAI itself or a self-hosted one (vLLM, speaches, LocalAI ...).

Failures are told apart by whose fault they are and what a retry can change:

- HTTP 429, HTTP 5xx, a refused or dropped connection and a timeout are retried, at most
  ``max_attempts`` times in all, waiting ``backoff_s`` and then twice as long each time
  (or the server's ``Retry-After``), never more than ``max_backoff_s``;
- HTTP 401 and 403 stop the run: the key is wrong for every sample (exit 2);
- any other answer that gives no words (another 4xx, a redirect, which is not followed
  so the key goes nowhere else, retries used up, a 2xx body that is not
  ``verbose_json`` with word timestamps) fails that sample only, with the reason.

The key is read from an environment variable and sent only in the ``Authorization``
header. Everything the server sends back (the answer's body, hence its words, and every
reason quoting it) is scrubbed of the key and the run's other secrets
(:func:`speecheval.agents.redact.run_scrubber`) before it leaves this module: a server
that echoes its request as words must not put the key into a transcript.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from ..agents.redact import REDACTED, run_scrubber
from ..core import peer_json
from ..core.audio import Samples, encode_wav
from ..core.errors import InputError
from .base import SAMPLE_RATE, RecognitionFailed, TimedWord

ENDPOINT_PATH = "/audio/transcriptions"
RETRIED_STATUS = "HTTP 429 and 5xx, refused or dropped connections, timeouts"
_DETAIL_CHARS = 300
"""How much of a server's error message a reason quotes."""


@dataclass(frozen=True)
class OpenAISettings:
    """Where to send tracks, what to ask for, and how often to try."""

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    language: str = "en"
    temperature: float = 0.0
    max_attempts: int = 4
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    timeout_s: float = 300.0
    granularities: tuple[str, ...] = ("word",)
    """The ``timestamp_granularities[]`` asked for: ``word``, and ``segment`` too for
    transcripts."""

    @property
    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + ENDPOINT_PATH


NOT_HTTP = "must be an http(s) URL such as http://127.0.0.1:8000/v1"
CARRIES_SECRETS = "must not carry credentials, a query or a fragment"


def base_url_problem(base_url: str) -> str | None:
    """Why a base URL cannot be used (:data:`NOT_HTTP`) or would put a secret where it is
    recorded (:data:`CARRIES_SECRETS`), or None; each command says where that is and
    where its key comes from."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return NOT_HTTP
    if parts.username or parts.password or parts.query or parts.fragment:
        return CARRIES_SECRETS
    return None


def check_base_url(base_url: str) -> None:
    """Refuse a base URL that cannot be used or that would put a secret into asr.json."""
    problem = base_url_problem(base_url)
    if problem == NOT_HTTP:
        raise InputError(f"--base-url {problem}, got {base_url!r}")
    if problem is not None:
        raise InputError(f"--base-url {problem} (it is recorded in asr.json; the key comes "
                         "from --api-key-env)")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are not followed: urllib would resend the Authorization header to
    wherever the server points; a 3xx answer fails the sample instead."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


class _Retry(Exception):
    """One attempt failed in a way a later attempt may not."""

    def __init__(self, reason: str, wait_s: float | None = None) -> None:
        self.reason, self.wait_s = reason, wait_s
        super().__init__(reason)


def retry_wait_s(attempt: int, failure: _Retry, backoff_s: float, max_backoff_s: float
                 ) -> float:
    """The wait after failed attempt ``attempt`` (1-based): ``backoff_s`` doubled each
    time, at least the server's ``Retry-After``, at most ``max_backoff_s``."""
    wait = backoff_s * 2.0 ** (attempt - 1)
    if failure.wait_s is not None:
        wait = max(wait, failure.wait_s)
    return min(wait, max_backoff_s)


def post_with_key(endpoint: str, body: bytes, content_type: str, key: str, timeout_s: float
                  ) -> bytes:
    """One POST with the key in the ``Authorization`` header (redirects not followed).

    The 2xx body; an HTTP error answer is raised as ``urllib.error.HTTPError`` for the
    caller to judge (whose fault, worth a retry or not); a cut-off answer, a refused or
    dropped connection and a timeout are ``_Retry``.
    """
    request = urllib.request.Request(
        endpoint, data=body, method="POST",
        headers={"Content-Type": content_type, "Accept": "application/json",
                 "Authorization": f"Bearer {key}"})
    try:
        with _OPENER.open(request, timeout=timeout_s) as answer:
            data: bytes = answer.read()
            return data
    except urllib.error.HTTPError:
        raise
    except http.client.IncompleteRead as exc:
        raise _Retry(f"the answer was cut off after {len(exc.partial)} bytes") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        raise _Retry(f"no answer from {endpoint}: {reason or type(exc).__name__}") from None


class OpenAICompatibleRecogniser:
    """Timed words from an OpenAI-compatible ``/audio/transcriptions`` endpoint."""

    def __init__(self, settings: OpenAISettings) -> None:
        check_base_url(settings.base_url)
        if settings.max_attempts < 1:
            raise InputError(f"max_attempts must be at least 1, got {settings.max_attempts}")
        key = os.environ.get(settings.api_key_env)
        if not key:
            raise InputError(f"the openai-compatible backend reads its API key from the "
                             f"environment variable {settings.api_key_env}, which is not set "
                             f"(set it, to any value for a server without keys, or name "
                             f"another with --api-key-env)")
        self.settings = settings
        self._key = key
        self._scrub = run_scrubber(env=[settings.api_key_env])
        self.retries = 0
        """Attempts beyond the first, over every track so far (the caller reports them)."""

    def words(self, samples: Samples) -> list[TimedWord]:
        """Send ``samples`` and return the answer's words, retrying as the module says;
        each word is scrubbed again (a secret written with JSON escapes the body's
        scrubbing could not see is plain once parsed)."""
        words = words_of_answer(self.answer(encode_wav(samples, SAMPLE_RATE)))
        return [replace(word, text=self._scrub(word.text)) for word in words]

    def answer(self, wav: bytes) -> bytes:
        """Send the WAV file ``wav`` as it is and return the body of the 2xx answer,
        unparsed but scrubbed of the run's secrets, retrying as the module says."""
        s = self.settings
        body, content_type = self._form(wav)
        for attempt in range(1, s.max_attempts + 1):
            try:
                return self._scrub.raw(self._post(body, content_type))
            except _Retry as failure:
                if attempt == s.max_attempts:
                    raise RecognitionFailed(self._redact(
                        f"{failure.reason} (gave up after {attempt} attempts)")) from None
                self.retries += 1
                time.sleep(retry_wait_s(attempt, failure, s.backoff_s, s.max_backoff_s))
            except RecognitionFailed as failure:
                raise RecognitionFailed(self._redact(failure.reason)) from None
        raise AssertionError("max_attempts is at least 1")

    def _form(self, wav: bytes) -> tuple[bytes, str]:
        """The multipart/form-data body of one request and its content type."""
        s = self.settings
        boundary = f"speecheval-{uuid.uuid4().hex}"
        fields = [("model", s.model), ("response_format", "verbose_json"),
                  *(("timestamp_granularities[]", g) for g in s.granularities),
                  ("language", s.language), ("temperature", repr(s.temperature))]
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                 f"{value}\r\n".encode() for name, value in fields]
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                     f'filename="audio.wav"\r\nContent-Type: audio/wav\r\n\r\n'.encode()
                     + wav + b"\r\n")
        parts.append(f"--{boundary}--\r\n".encode())
        return b"".join(parts), f"multipart/form-data; boundary={boundary}"

    def _post(self, body: bytes, content_type: str) -> bytes:
        """One attempt: the 2xx body, or ``_Retry``/``RecognitionFailed``/``InputError``."""
        s = self.settings
        try:
            return post_with_key(s.endpoint, body, content_type, self._key, s.timeout_s)
        except urllib.error.HTTPError as error:
            raise self._refusal(error) from None

    def _refusal(self, error: urllib.error.HTTPError) -> Exception:
        """What an HTTP error answer means for this sample and the run."""
        status = error.code
        detail = self._redact(_error_detail(error))
        if status in (401, 403):
            return InputError(f"{self.settings.endpoint} refused the API key from "
                              f"{self.settings.api_key_env} (HTTP {status}): {detail}")
        if status == 429 or status >= 500:
            return _Retry(f"HTTP {status}: {detail}", _retry_after(error))
        return RecognitionFailed(f"HTTP {status}: {detail}")

    def _redact(self, text: str) -> str:
        return self._scrub(text.replace(self._key, REDACTED))

    def identity(self) -> dict[str, object]:
        s = self.settings
        return {
            "backend": "openai-compatible",
            "endpoint": s.endpoint,
            "model": s.model,
            "request": {"response_format": "verbose_json",
                        "timestamp_granularities[]": list(s.granularities),
                        "language": s.language, "temperature": s.temperature,
                        "audio": f"WAV, {SAMPLE_RATE} Hz mono, 16-bit PCM"},
            "api_key_env": s.api_key_env,
            "retry": {"max_attempts": s.max_attempts, "backoff_s": s.backoff_s,
                      "max_backoff_s": s.max_backoff_s, "retried_on": RETRIED_STATUS},
            "timeout_s": s.timeout_s,
            "model_files": "not known: the server's model is identified by name only",
        }


def _error_detail(error: urllib.error.HTTPError) -> str:
    """The server's own message (OpenAI's ``{"error": {"message": ...}}``) or its body."""
    try:
        raw = error.read()
    except (OSError, http.client.HTTPException):
        raw = b""
    text = raw.decode("utf-8", "replace").strip()
    try:
        message = peer_json.loads(text)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = text or error.reason
    return " ".join(str(message).split())[:_DETAIL_CHARS]


def _retry_after(error: urllib.error.HTTPError) -> float | None:
    """The server's ``Retry-After`` in seconds, when it gives a number."""
    value = error.headers.get("Retry-After") if error.headers else None
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and math.isfinite(seconds) and seconds >= 0 else None


def words_of_answer(body: bytes) -> list[TimedWord]:
    """The timed words of a ``verbose_json`` answer, or why it has none.

    >>> words_of_answer(b'{"text": "Hi there", "words": [{"word": " Hi", "start": 0.5,'
    ...                 b' "end": 0.7}, {"word": "there", "start": 0.7, "end": 1.1}]}')
    [TimedWord(text='Hi', start_s=0.5, end_s=0.7), TimedWord(text='there', start_s=0.7, end_s=1.1)]
    >>> words_of_answer(b'{"text": "Hi there"}')
    Traceback (most recent call last):
    ...
    speecheval.asr.base.RecognitionFailed: the answer has no "words" list: the server did \
not give word timestamps (timestamp_granularities[]=word)
    """
    try:
        data: Any = peer_json.loads(body.decode("utf-8"))
    except peer_json.PeerJSONLimit as exc:
        raise RecognitionFailed(f"the answer is not JSON ({len(body)} bytes, "
                                f"{exc.reason})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecognitionFailed(f"the answer is not JSON ({len(body)} bytes, "
                                f"{type(exc).__name__} at byte {_position(exc)})") from None
    if not isinstance(data, dict) or not isinstance(data.get("words"), list):
        raise RecognitionFailed('the answer has no "words" list: the server did not give '
                                "word timestamps (timestamp_granularities[]=word)")
    words = []
    for index, item in enumerate(data["words"]):
        word = _timed_word(item)
        if word is None:
            raise RecognitionFailed(f"words[{index}] is not a word with a start and an end "
                                    f"in seconds (0 <= start <= end): {json.dumps(item)[:80]}")
        if word.text:
            words.append(word)
    if not words and str(data.get("text", "")).strip():
        raise RecognitionFailed('the answer has text but an empty "words" list: the server '
                                "did not give word timestamps")
    return words


def _timed_word(item: Any) -> TimedWord | None:
    if not isinstance(item, dict) or not isinstance(item.get("word"), str):
        return None
    times = [t for t in (item.get("start"), item.get("end"))
             if isinstance(t, int | float) and not isinstance(t, bool) and math.isfinite(t)]
    if len(times) != 2:
        return None
    start, end = float(times[0]), float(times[1])
    if not 0 <= start <= end:
        return None
    return TimedWord(item["word"].strip(), start, end)


def _position(exc: ValueError) -> int:
    return exc.pos if isinstance(exc, json.JSONDecodeError) else getattr(exc, "start", 0)
