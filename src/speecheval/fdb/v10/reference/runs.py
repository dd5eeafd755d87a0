"""A subset's run of the official v1.0 evaluator, as ``summary.json`` records it.

Why a module of its own: ``evaluate`` makes these (it runs the evaluator) and
``summary_file`` writes them; both import them from here, so neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OK = "ok"
NOT_COMPUTABLE = "not computable"
SKIPPED = "skipped"
FAILED = "failed"
"""The status of a subset's run; an ``ok`` or ``not computable`` subset is never run again."""


@dataclass(frozen=True)
class Judge:
    """Who rates the interruption replies: the official model or a self-hosted server
    speaking the OpenAI chat API. The key is read from ``key_env`` by the subprocess and
    never written anywhere."""

    official: bool
    model: str
    base_url: str | None = None
    key_env: str = "OPENAI_API_KEY"
    max_attempts: int = 3

    def report_dict(self) -> dict[str, Any]:
        return {"model": self.model, "official": self.official, "keys": ["mean_rating"],
                "base_url": self.base_url, "max_attempts": self.max_attempts}


@dataclass
class SubsetRun:
    """One subset's outcome: its numbers, or why it has none, and what was printed."""

    status: str
    values: dict[str, float] = field(default_factory=dict)
    reason: str | None = None
    printed: list[str] = field(default_factory=list)
    samples: int = 0
    notes: list[str] = field(default_factory=list)

    def report_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {"status": self.status, "samples": self.samples,
                                  "printed": self.printed}
        if self.reason is not None:
            record["reason"] = self.reason
        if self.notes:
            record["notes"] = self.notes
        return record
