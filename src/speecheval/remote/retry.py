"""How often a remote model is asked, and how long to wait between attempts.

HTTP 429, HTTP 5xx, a refused or dropped connection, a cut-off answer and a timeout may
go away by themselves, so they are :class:`Retry` failures: asked again, at most
``max_attempts`` times in all, waiting ``backoff_s`` and then twice as long each time (or
the server's ``Retry-After`` when it asks for longer), never more than ``max_backoff_s``.
Every other failure is the caller's to judge.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..core.errors import InputError

RETRIED_STATUS = "HTTP 429 and 5xx, refused or dropped connections, timeouts"
T = TypeVar("T")


class Retry(Exception):
    """One attempt failed in a way a later attempt may not; ``wait_s`` is how long the
    server asked us to wait (``Retry-After``), when it said."""

    def __init__(self, reason: str, wait_s: float | None = None) -> None:
        self.reason, self.wait_s = reason, wait_s
        super().__init__(reason)


class GaveUp(Exception):
    """Every attempt failed with a :class:`Retry`; ``last`` is the last one."""

    def __init__(self, last: Retry, attempts: int) -> None:
        self.last, self.attempts = last, attempts
        super().__init__(f"{last.reason} (gave up after {attempts} attempts)")


@dataclass(frozen=True)
class RetryPolicy:
    """The bound on attempts and the waits between them (see the module docstring)."""

    max_attempts: int
    backoff_s: float
    max_backoff_s: float

    def check(self) -> None:
        """Refuse a bound no attempt fits in."""
        if self.max_attempts < 1:
            raise InputError(f"max_attempts must be at least 1, got {self.max_attempts}")

    def wait_s(self, attempt: int, failure: Retry) -> float:
        """The wait after failed attempt ``attempt`` (1-based).

        >>> policy = RetryPolicy(4, backoff_s=1.0, max_backoff_s=30.0)
        >>> [policy.wait_s(n, Retry("HTTP 503")) for n in (1, 2, 3)]
        [1.0, 2.0, 4.0]
        >>> policy.wait_s(1, Retry("HTTP 429", wait_s=7.5)), policy.wait_s(3, Retry("x", 99))
        (7.5, 30.0)
        """
        wait = self.backoff_s * 2.0 ** (attempt - 1)
        if failure.wait_s is not None:
            wait = max(wait, failure.wait_s)
        return min(wait, self.max_backoff_s)

    def pause(self, attempt: int, failure: Retry) -> None:
        """Sleep the wait after failed attempt ``attempt``."""
        time.sleep(self.wait_s(attempt, failure))

    def identity(self, retried_on: str = RETRIED_STATUS) -> dict[str, Any]:
        """The policy as a run's files record it."""
        return {"max_attempts": self.max_attempts, "backoff_s": self.backoff_s,
                "max_backoff_s": self.max_backoff_s, "retried_on": retried_on}

    def run(self, attempt: Callable[[], T],
            retrying: Callable[[int, Retry], None] = lambda number, failure: None) -> T:
        """``attempt()`` until it returns, again after each :class:`Retry` it raises
        (``retrying(number, failure)`` is told before each wait), at most
        ``max_attempts`` times; then :class:`GaveUp`. Other exceptions pass through.
        """
        for number in range(1, self.max_attempts + 1):
            try:
                return attempt()
            except Retry as failure:
                if number == self.max_attempts:
                    raise GaveUp(failure, number) from None
                retrying(number, failure)
                self.pause(number, failure)
        raise AssertionError("max_attempts is at least 1")
