"""The request ledger: every request sent to a remote model and every reply or failure, in
order, so a verdict can be traced back to what was asked and what came back.

Entries hold what the caller gives: the request without the key (the key travels only in
a header) and replies and reasons already scrubbed by the endpoint.
"""

from __future__ import annotations

from typing import Any


class RequestLedger:
    """``log(sample_id, attempt, event, **fields)`` appends one entry to ``entries``.

    >>> ledger = RequestLedger()
    >>> ledger.log("s1", 1, "error", error="HTTP 503: busy")
    >>> ledger.entries
    [{'sample_id': 's1', 'attempt': 1, 'event': 'error', 'error': 'HTTP 503: busy'}]
    """

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def log(self, sample_id: str, attempt: int, event: str, **fields: Any) -> None:
        self.entries.append({"sample_id": sample_id, "attempt": attempt, "event": event,
                             **fields})
