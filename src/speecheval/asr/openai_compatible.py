"""A transcription server that speaks OpenAI's ``POST /v1/audio/transcriptions``.

Each track is sent as a 16 kHz mono 16-bit WAV in a multipart form with ``model``,
``response_format=verbose_json`` and ``timestamp_granularities[]=word``, and the answer's
``words`` (``{"word", "start", "end"}`` in seconds) become the timed words. The server
may be OpenAI itself or a self-hosted one (vLLM, speaches, LocalAI ...).

Failures are told apart by whose fault they are and what a retry can change (the
rules of every remote model, :mod:`speecheval.remote.endpoint` and
:mod:`speecheval.remote.retry`):

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
(:func:`speecheval.core.redact.run_scrubber`) before it leaves this module: a server
that echoes its request as words must not put the key into a transcript.
"""

from __future__ import annotations

import json
import math
import uuid
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ..core.audio import Samples, encode_wav
from ..core.redact import run_scrubber
from ..remote import answers
from ..remote.endpoint import EndpointSettings, OpenAIEndpoint, Rejected
from ..remote.keys import api_key, unset_key
from ..remote.retry import GaveUp, Retry
from .base import SAMPLE_RATE, RecognitionFailed, TimedWord

ENDPOINT_PATH = "/audio/transcriptions"


@dataclass(frozen=True)
class OpenAISettings(EndpointSettings):
    """Where to send tracks, what to ask for, and how often to try."""

    path: ClassVar[str] = ENDPOINT_PATH
    language: str = "en"
    temperature: float = 0.0
    granularities: tuple[str, ...] = ("word",)
    """The ``timestamp_granularities[]`` asked for: ``word``, and ``segment`` too for
    transcripts."""


class OpenAICompatibleRecogniser:
    """Timed words from an OpenAI-compatible ``/audio/transcriptions`` endpoint."""

    def __init__(self, settings: OpenAISettings) -> None:
        settings.check()
        key = api_key(settings.api_key_env, unset_key(
            "the openai-compatible backend reads its", settings.api_key_env, "--api-key-env"))
        self.settings = settings
        self._endpoint = OpenAIEndpoint(settings, key, run_scrubber(env=[settings.api_key_env]))
        self.retries = 0
        """Attempts beyond the first, over every track so far (the caller reports them)."""

    def words(self, samples: Samples) -> list[TimedWord]:
        """Send ``samples`` and return the answer's words, retrying as the module says;
        each word is scrubbed again (a secret written with JSON escapes the body's
        scrubbing could not see is plain once parsed)."""
        words = words_of_answer(self.answer(encode_wav(samples, SAMPLE_RATE)))
        return [replace(word, text=self._endpoint.scrub(word.text)) for word in words]

    def answer(self, wav: bytes) -> bytes:
        """Send the WAV file ``wav`` as it is and return the body of the 2xx answer,
        unparsed but scrubbed of the run's secrets, retrying as the module says."""
        body, content_type = self._form(wav)
        try:
            return self.settings.retry.run(
                lambda: self._endpoint.post(body, content_type),
                self._count_retry)
        except GaveUp as gave_up:
            raise RecognitionFailed(self._endpoint.redact(str(gave_up))) from None
        except Rejected as rejected:
            raise RecognitionFailed(self._endpoint.redact(rejected.reason)) from None

    def _count_retry(self, attempt: int, failure: Retry) -> None:
        self.retries += 1

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
            "retry": s.retry.identity(),
            "timeout_s": s.timeout_s,
            "model_files": "not known: the server's model is identified by name only",
        }


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
        data: Any = answers.parse(body)
    except ValueError as exc:  # not UTF-8, not JSON, or past the parser's bounds
        raise RecognitionFailed(answers.not_json(body, exc)) from None
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

