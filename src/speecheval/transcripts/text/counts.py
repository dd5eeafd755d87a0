"""Edit-error counts: the numbers behind every WER/CER/MER/cpWER (S, D, I, N).

A rate alone hides whether a system drops words or invents them, so every result keeps
substitutions, deletions, insertions and the reference token count. Counts add with
``+`` and ``sum()``, which is how a corpus (micro) value is formed: sum S, D, I and N over
samples, then divide once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core.results import FieldwiseSum, Result
from ...core.share import fraction


@dataclass(frozen=True)
class ErrorCounts(FieldwiseSum, Result, kind="transcripts.error_counts"):
    """S, D, I and the token counts of one alignment (or a sum of them).

    ``reference_tokens - deletions == hypothesis_tokens - insertions`` is the number of
    reference tokens kept (matched or substituted); the constructor refuses counts that
    break it, so a bookkeeping bug cannot produce a plausible-looking rate.

    >>> a = ErrorCounts(substitutions=1, deletions=2, insertions=0,
    ...                 reference_tokens=10, hypothesis_tokens=8)
    >>> b = ErrorCounts(substitutions=0, deletions=0, insertions=3,
    ...                 reference_tokens=5, hypothesis_tokens=8)
    >>> total = sum([a, b])
    >>> total.errors, total.reference_tokens, total.error_rate
    (6, 15, 0.4)
    >>> ErrorCounts(0, 0, 0, 0, 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: inconsistent counts: reference_tokens - deletions = 0 but ...
    """

    substitutions: int
    deletions: int
    insertions: int
    reference_tokens: int
    hypothesis_tokens: int

    def __post_init__(self) -> None:
        for name in ("substitutions", "deletions", "insertions", "reference_tokens",
                     "hypothesis_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative int, got {value!r}")
        kept_ref = self.reference_tokens - self.deletions
        kept_hyp = self.hypothesis_tokens - self.insertions
        if kept_ref != kept_hyp:
            raise ValueError(f"inconsistent counts: reference_tokens - deletions = {kept_ref} "
                             f"but hypothesis_tokens - insertions = {kept_hyp}")
        if self.substitutions > kept_ref:
            raise ValueError(f"substitutions ({self.substitutions}) exceed the aligned "
                             f"reference tokens ({kept_ref})")

    @classmethod
    def zero(cls) -> ErrorCounts:
        """The neutral element of ``+``."""
        return cls(0, 0, 0, 0, 0)

    @property
    def errors(self) -> int:
        """S + D + I: the edit distance when the counts come from one optimal alignment."""
        return self.substitutions + self.deletions + self.insertions

    @property
    def hits(self) -> int:
        """Reference tokens matched exactly."""
        return self.reference_tokens - self.deletions - self.substitutions

    @property
    def error_rate(self) -> float | None:
        """(S + D + I) / N, or ``None`` when there are no reference tokens (undefined)."""
        return fraction(self.errors, self.reference_tokens)

    def report_dict(self) -> dict[str, Any]:
        """Plain dict with the quantities named, for canonical JSON."""
        return {
            "substitutions": self.substitutions,
            "deletions": self.deletions,
            "insertions": self.insertions,
            "errors": self.errors,
            "length": self.reference_tokens,
            "hypothesis_length": self.hypothesis_tokens,
            "error_rate": self.error_rate,
        }
