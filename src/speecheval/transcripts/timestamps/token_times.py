"""Matched-token start and end errors, when the reference has word times too.

Both word-level streams (reference CTM and hypothesis CTM) are aligned with the error
rate's tokens; each exact match gives one start error and one end error. A CTM word that
yields several tokens (an English word under character tokens) gives each of them the
word's span, so only its first token's start and last token's end are true token times;
use the unit that matches the CTM's granularity.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core.results import FieldwiseSum, Result
from ...core.share import fraction
from .stats import ErrorValues
from .stream import TimedSegments, align_streams, matched_tokens


@dataclass(frozen=True, eq=False)
class TokenTiming(FieldwiseSum, Result, kind="transcripts.token_timing"):
    """Errors of matched tokens; ``+`` pools samples."""

    reference_tokens: int
    start_errors: ErrorValues
    end_errors: ErrorValues

    def __post_init__(self) -> None:
        if not self.start_errors.count == self.end_errors.count <= self.reference_tokens:
            raise ValueError(f"token timing counts do not add up: {self!r}")

    @property
    def matched_tokens(self) -> int:
        """Reference tokens matched exactly (each has one start and one end error)."""
        return self.start_errors.count

    def report_dict(self) -> dict[str, Any]:
        """Counts, match coverage and error summaries."""
        return {
            "reference_tokens": self.reference_tokens,
            "matched_tokens": self.matched_tokens,
            "reference_token_match_coverage": fraction(self.matched_tokens,
                                                        self.reference_tokens),
            "start": self.start_errors.summary(),
            "end": self.end_errors.summary(),
        }


def token_timing(reference: TimedSegments, hypothesis: TimedSegments) -> TokenTiming:
    """Align two word-timed streams and measure every matched token."""
    ref_idx, hyp_idx = matched_tokens(align_streams(reference, hypothesis))
    start = abs(hypothesis.token_starts[hyp_idx] - reference.token_starts[ref_idx])
    end = abs(hypothesis.token_ends[hyp_idx] - reference.token_ends[ref_idx])
    return TokenTiming(len(reference.token_text), ErrorValues.of(start), ErrorValues.of(end))
