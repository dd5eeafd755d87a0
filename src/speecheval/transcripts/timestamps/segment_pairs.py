"""Diagnostic for systems with segment times only: unique segment pairs (not ranked).

A reference segment and a hypothesis segment form a pair when every matched token of
the one lies in the other and vice versa (each is the other's only partner on the edit
path). Their start and end errors and time IoU are a parity diagnostic: they mix timing
errors with the system's segmentation policy, so they go to their own table and are
never set beside the token-anchored turn timing. Reference turns overlapping another
speaker are left out, as in the main protocol.
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


@dataclass(frozen=True, eq=False)
class SegmentPairTiming(FieldwiseSum, Result, kind="transcripts.segment_pair_timing"):
    """Unique pairs and their errors; ``+`` pools samples."""

    reference_segments: int
    overlapping_segments: int
    start_errors: ErrorValues
    end_errors: ErrorValues
    iou: NDArray[np.float64]

    @property
    def pairs(self) -> int:
        """Unique (reference segment, hypothesis segment) pairs."""
        return self.start_errors.count

    def report_dict(self) -> dict[str, Any]:
        """Counts, pair coverage and error summaries."""
        return {
            "reference_segments": self.reference_segments,
            "overlapping_segments_excluded": self.overlapping_segments,
            "unique_pairs": self.pairs,
            "pair_coverage": fraction(self.pairs, self.reference_segments),
            "start": self.start_errors.summary(),
            "end": self.end_errors.summary(),
            "mean_iou": float(self.iou.mean()) if self.iou.size else None,
        }


def segment_pair_timing(reference: TimedSegments,
                        hypothesis: TimedSegments) -> SegmentPairTiming:
    """Find unique segment pairs through the token alignment and time them."""
    ref_idx, hyp_idx = matched_tokens(align_streams(reference, hypothesis))
    r = reference.token_group[ref_idx]
    h = hypothesis.token_group[hyp_idx]
    links = np.unique(np.stack([r, h], axis=1), axis=0).reshape(-1, 2)
    ref_partners = np.bincount(links[:, 0], minlength=reference.size)
    hyp_partners = np.bincount(links[:, 1], minlength=hypothesis.size)
    overlapping = overlaps_other_speaker(reference.starts, reference.ends, reference.speakers)
    unique = ((ref_partners[links[:, 0]] == 1) & (hyp_partners[links[:, 1]] == 1)
              & ~overlapping[links[:, 0]])
    pr, ph = links[unique, 0], links[unique, 1]
    rs, re_, hs, he = (reference.starts[pr], reference.ends[pr], hypothesis.starts[ph],
                       hypothesis.ends[ph])
    return SegmentPairTiming(
        reference_segments=reference.size,
        overlapping_segments=int(overlapping.sum()),
        start_errors=ErrorValues.of(np.abs(hs - rs)),
        end_errors=ErrorValues.of(np.abs(he - re_)),
        iou=pair_iou(Spans(hs, he), Spans(rs, re_)),
    )
