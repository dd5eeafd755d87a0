"""Precision, recall and F1 from match counts, shared by punctuation, numbers and terms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core.results import FieldwiseSum, Result
from ...core.share import fraction


@dataclass(frozen=True)
class MatchCounts(FieldwiseSum, Result, kind="transcripts.match_counts"):
    """``matched`` items out of ``reference`` and ``hypothesis`` items; adds for a corpus.

    >>> m = MatchCounts(matched=3, reference=4, hypothesis=6) + MatchCounts(1, 1, 2)
    >>> m.precision, m.recall, m.f1
    (0.5, 0.8, 0.6153846153846154)
    >>> MatchCounts(0, 0, 0).f1 is None
    True
    """

    matched: int
    reference: int
    hypothesis: int

    def __post_init__(self) -> None:
        if min(self.matched, self.reference, self.hypothesis) < 0:
            raise ValueError(f"counts must be non-negative: {self!r}")
        if self.matched > min(self.reference, self.hypothesis):
            raise ValueError(f"more matches than items on one side: {self!r}")

    @property
    def precision(self) -> float | None:
        """Matched / hypothesis items; ``None`` when the hypothesis has none."""
        return fraction(self.matched, self.hypothesis)

    @property
    def recall(self) -> float | None:
        """Matched / reference items; ``None`` when the reference has none."""
        return fraction(self.matched, self.reference)

    @property
    def f1(self) -> float | None:
        """2M / (R + H); ``None`` when both sides are empty (nothing to score)."""
        total = self.reference + self.hypothesis
        return fraction(2 * self.matched, total)

    def report_dict(self) -> dict[str, Any]:
        """Counts and rates by name."""
        return {"matched": self.matched, "reference": self.reference,
                "hypothesis": self.hypothesis, "precision": self.precision,
                "recall": self.recall, "f1": self.f1}
