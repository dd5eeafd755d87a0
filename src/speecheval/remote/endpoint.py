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
secrets (the :class:`~speecheval.agents.redact.Scrubber` the caller gives, usually
:func:`~speecheval.agents.redact.run_scrubber`): a server that echoes its request must
not put the key into a transcript, a ledger or a report.
"""

from __future__ import annotations

from ..agents.redact import REDACTED, Scrubber
from ..core.errors import InputError
from .client import ErrorAnswer, NoAnswer, send
from .retry import Retry


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
    """Where to POST (``base_url`` + a path such as ``/chat/completions``), with which
    key, how long to wait for one answer, and the scrubber for what comes back."""

    def __init__(self, base_url: str, api_key_env: str, key: str, timeout_s: float,
                 scrub: Scrubber) -> None:
        self.base_url, self.api_key_env, self.timeout_s = base_url, api_key_env, timeout_s
        self.scrub = scrub
        self._key = key

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path

    def redact(self, text: str) -> str:
        """``text`` without the key (even one too short for the scrubber to look for)
        and without the run's other secrets."""
        return self.scrub(text.replace(self._key, REDACTED) if self._key else text)

    def post(self, path: str, body: bytes, content_type: str) -> bytes:
        """One attempt: the body of the 2xx answer, scrubbed; or :class:`Retry`,
        :class:`KeyRefused` or :class:`Rejected` with a redacted reason."""
        url = self.url(path)
        try:
            reply = send(url, body=body, timeout_s=self.timeout_s,
                         headers={"Content-Type": content_type, "Accept": "application/json",
                                  "Authorization": f"Bearer {self._key}"})
        except NoAnswer as failure:
            raise Retry(self.redact(failure.reason)) from None
        except ErrorAnswer as error:
            status, detail = error.status, self.redact(error.detail)
            if status in (401, 403):
                raise KeyRefused(f"{url} refused the API key from {self.api_key_env} "
                                 f"(HTTP {status}): {detail}", status, detail) from None
            if status == 429 or status >= 500:
                raise Retry(f"HTTP {status}: {detail}", error.retry_after_s) from None
            raise Rejected(f"HTTP {status}: {detail}") from None
        return self.scrub.raw(reply.body)
