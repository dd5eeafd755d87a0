"""An OpenAI-compatible endpoint: one POST with the key, its failures sorted by whose fault
they are and what a retry can change, every text the server sends scrubbed.

- HTTP 429, HTTP 5xx, a refused or dropped connection, a cut-off answer and a timeout are
  :class:`~speecheval.remote.retry.Retry` (the caller's
  :class:`~speecheval.remote.retry.RetryPolicy` asks again);
- HTTP 401 and 403 are :class:`KeyRefused`, a usage error: the key is wrong for every
  request, so the run stops (exit 2);
- any other HTTP answer (another 4xx, a redirect, which is not followed so the key goes
  nowhere else) is :class:`Rejected`: no retry changes it.

The key is sent only in the ``Authorization`` header. The body of a 2xx answer and every
reason quoting the server leave this module scrubbed of the key and of the run's other
secrets (the :class:`~speecheval.core.redact.Scrubber` the caller gives, usually
:func:`~speecheval.core.redact.run_scrubber`): a server that echoes its request must
not put the key into a transcript, a ledger or a report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..core.errors import InputError
from ..core.redact import REDACTED, Scrubber
from .client import ErrorAnswer, NoAnswer, send
from .keys import check_base_url
from .retry import Retry, RetryPolicy


@dataclass(frozen=True)
class EndpointSettings:
    """Where a remote model is (``base_url`` and the class's ``path``), which model, the
    variable that holds the key, and how often and how long to try. Each client adds the
    settings of its request."""

    path: ClassVar[str]
    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    max_attempts: int = 4
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    timeout_s: float = 300.0

    @property
    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + self.path

    @property
    def retry(self) -> RetryPolicy:
        return RetryPolicy(self.max_attempts, self.backoff_s, self.max_backoff_s)

    def check(self) -> None:
        """Refuse a base URL that cannot be used or would record a secret, and a bound
        no attempt fits in (usage errors, before anything is sent)."""
        check_base_url(self.base_url)
        self.retry.check()


class KeyRefused(InputError):
    """HTTP 401 or 403: the server refused the key (a usage error: exit 2)."""

    def __init__(self, message: str, status: int, detail: str) -> None:
        super().__init__(message)
        self.status, self.detail = status, detail


class Rejected(Exception):
    """An HTTP answer no retry changes; ``reason`` is ``HTTP <status>: <detail>``."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class OpenAIEndpoint:
    """The endpoint of ``settings``, asked with ``key``; ``scrub`` is for what comes
    back."""

    def __init__(self, settings: EndpointSettings, key: str, scrub: Scrubber) -> None:
        self.settings, self.scrub = settings, scrub
        self._key = key

    def redact(self, text: str) -> str:
        """``text`` without the key (even one too short for the scrubber to look for)
        and without the run's other secrets."""
        return self.scrub(text.replace(self._key, REDACTED) if self._key else text)

    def post(self, body: bytes, content_type: str) -> bytes:
        """One attempt: the body of the 2xx answer, scrubbed; or :class:`Retry`,
        :class:`KeyRefused` or :class:`Rejected` with a redacted reason."""
        url = self.settings.endpoint
        try:
            reply = send(url, body=body, timeout_s=self.settings.timeout_s,
                         headers={"Content-Type": content_type, "Accept": "application/json",
                                  "Authorization": f"Bearer {self._key}"})
        except NoAnswer as failure:
            raise Retry(self.redact(failure.reason)) from None
        except ErrorAnswer as error:
            status, detail = error.status, self.redact(error.detail)
            if status in (401, 403):
                raise KeyRefused(f"{url} refused the API key from {self.settings.api_key_env} "
                                 f"(HTTP {status}): {detail}", status, detail) from None
            if status == 429 or status >= 500:
                raise Retry(f"HTTP {status}: {detail}", error.retry_after_s) from None
            raise Rejected(f"HTTP {status}: {detail}") from None
        return self.scrub.raw(reply.body)
