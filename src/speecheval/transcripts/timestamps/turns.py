"""Reference turns timed by hypothesis token anchors (the main timestamp protocol).

For each reference turn (a reference segment) the matched tokens of the edit path are
anchors: the predicted turn runs from the start of the hypothesis token matched to the
turn's first matched token to the end of the one matched to its last. A turn is scored
only when

- it shares no time with a turn of another speaker (a single transcript stream has no
  unique token order inside overlapped speech): such turns are excluded and counted;
- at least 50% of its reference tokens are matched; and
- its first and its last 20% each hold a matched token, where 20% of ``n`` tokens is
  ``ceil(0.2 n)`` tokens (at least one, so a one-token turn needs that token matched).

Every excluded turn is counted by reason, and the coverage of matched reference tokens
and of scorable turns is reported, so a few easy turns cannot pass as the whole file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core.results import FieldwiseSum, Result
from ...core.share import fraction
from ...core.timeline import Spans, pair_iou
from .intervals import overlaps_other_speaker
from .stats import ErrorValues
from .stream import TimedSegments, align_streams, matched_tokens

MIN_MATCHED_SHARE = 0.5
ANCHOR_SHARE = 0.2


@dataclass(frozen=True, eq=False)
class TurnTiming(FieldwiseSum, Result, kind="transcripts.turn_timing"):
    """Turn counts by outcome and the errors of scorable turns; ``+`` pools samples."""

    reference_turns: int
    overlapping_turns: int
    empty_turns: int
    low_match_turns: int
    missing_anchor_turns: int
    reference_tokens: int
    matched_tokens: int
    start_errors: ErrorValues
    end_errors: ErrorValues
    iou: NDArray[np.float64]

    def __post_init__(self) -> None:
        excluded = (self.overlapping_turns + self.empty_turns + self.low_match_turns
                    + self.missing_anchor_turns)
        scorable = self.reference_turns - excluded
        if scorable < 0 or not (self.start_errors.count == self.end_errors.count
                                == self.iou.size == scorable):
            raise ValueError(f"turn counts do not add up: {self!r}")
        if not 0 <= self.matched_tokens <= self.reference_tokens:
            raise ValueError("matched tokens outside [0, reference tokens]")

    @property
    def scorable_turns(self) -> int:
        """Turns with timing errors."""
        return self.start_errors.count

    def report_dict(self) -> dict[str, Any]:
        """Counts, coverages and error summaries by name (seconds, fractions)."""
        return {
            "reference_turns": self.reference_turns,
            "scorable_turns": self.scorable_turns,
            "excluded_turns": {"overlapping": self.overlapping_turns,
                               "empty": self.empty_turns,
                               "matched_below_50_percent": self.low_match_turns,
                               "no_anchor_in_first_or_last_20_percent":
                                   self.missing_anchor_turns},
            "scorable_turn_coverage": fraction(self.scorable_turns, self.reference_turns),
            "reference_tokens": self.reference_tokens,
            "matched_reference_tokens": self.matched_tokens,
            "reference_token_match_coverage": fraction(self.matched_tokens,
                                                        self.reference_tokens),
            "start": self.start_errors.summary(),
            "end": self.end_errors.summary(),
            "mean_iou": float(self.iou.mean()) if self.iou.size else None,
        }


def anchor_width(tokens_in_turn: NDArray[np.int64]) -> NDArray[np.int64]:
    """``ceil(0.2 n)``, at least 1, in exact integer arithmetic.

    >>> anchor_width(np.array([1, 4, 5, 6, 10, 11])).tolist()
    [1, 1, 1, 2, 2, 3]
    """
    return np.maximum(1, -(-tokens_in_turn * 2 // 10))


def turn_timing(reference: TimedSegments, hypothesis: TimedSegments) -> TurnTiming:
    """Score reference turns against word-timed hypothesis tokens."""
    ref_idx, hyp_idx = matched_tokens(align_streams(reference, hypothesis))
    turns = reference.size
    group = reference.token_group
    n_tokens = np.bincount(group, minlength=turns)
    first_token = np.concatenate([[0], np.cumsum(n_tokens)[:-1]]).astype(np.int64)
    matched_group = group[ref_idx]
    n_matched = np.bincount(matched_group, minlength=turns)
    # ref_idx is increasing, so the first/last occurrence of a turn is its first/last anchor.
    first = np.full(turns, -1, dtype=np.int64)
    last = np.full(turns, -1, dtype=np.int64)
    order = np.arange(ref_idx.size)
    first_k = np.full(turns, ref_idx.size, dtype=np.int64)
    np.minimum.at(first_k, matched_group, order)
    last_k = np.full(turns, -1, dtype=np.int64)
    np.maximum.at(last_k, matched_group, order)
    has = n_matched > 0
    first[has] = first_k[has]
    last[has] = last_k[has]
    width = anchor_width(n_tokens)
    padded = np.append(ref_idx, 0)  # index -1 reads the pad for turns without anchors
    position_first = np.where(has, padded[first] - first_token, -1)
    position_last = np.where(has, padded[last] - first_token, -1)

    overlapping = overlaps_other_speaker(reference.starts, reference.ends, reference.speakers)
    empty = ~overlapping & (n_tokens == 0)
    low = ~overlapping & ~empty & (2 * n_matched < n_tokens)
    anchored = has & (position_first < width) & (position_last >= n_tokens - width)
    missing = ~overlapping & ~empty & ~low & ~anchored
    scorable = ~overlapping & ~empty & ~low & ~missing

    pred_start = hypothesis.token_starts[hyp_idx[first[scorable]]]
    pred_end = hypothesis.token_ends[hyp_idx[last[scorable]]]
    ref_start, ref_end = reference.starts[scorable], reference.ends[scorable]
    return TurnTiming(
        reference_turns=turns,
        overlapping_turns=int(overlapping.sum()),
        empty_turns=int(empty.sum()),
        low_match_turns=int(low.sum()),
        missing_anchor_turns=int(missing.sum()),
        reference_tokens=int(group.size),
        matched_tokens=int(ref_idx.size),
        start_errors=ErrorValues.of(np.abs(pred_start - ref_start)),
        end_errors=ErrorValues.of(np.abs(pred_end - ref_end)),
        iou=pair_iou(Spans(pred_start, pred_end), Spans(ref_start, ref_end)),
    )
