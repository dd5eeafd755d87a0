"""dscore's view of a file, reproduced for ``--compat dscore`` (nryant/dscore ``score.py``).

dscore does three things before and around md-eval that speecheval does not:

* It cuts every turn at the edges of the scoring region (``trim_turns``: the part
  outside the UEM is chopped off), then merges a speaker's overlapping turns
  (``merge_turns``, strict overlaps only). A cut end is a new reference boundary, so
  md-eval puts a collar there.
* It hands md-eval an RTTM and a UEM written with three decimals
  (``'%.3f' % round(x, 3)`` for the onset, the duration and the region edges).
* It scores JER (and its clustering metrics) on 10 ms frames, without a collar and with
  overlap included: frame ``i`` at ``t = 0.01 * i`` is speech of a turn when
  ``onset <= t < offset``, and frames outside the UEM are dropped
  (``turns_to_frames``).

Its JER (``metrics.jer``): for each reference speaker ``1 - |R ∩ S| / |R ∪ S|`` in
frames against the system speaker paired by a Hungarian assignment minimising that
error, 1 for an unpaired reference speaker; the total is the mean over the reference
speakers of all files. A file without system speech gives 1 for each of its reference
speakers; a file without reference speech adds nothing to the total (dscore prints 100 %
for that file alone).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...core.assignment import linear_sum_assignment
from ...core.errors import InputError
from ...core.timebase import to_us
from ..formats.rttm import RttmTurn
from .result import JerComponents

FRAME_STEP_S = 0.010  # dscore's default --step
FRAME_STEP_US = 10_000


@dataclass(frozen=True)
class DscoreTurn:
    """A turn as dscore holds it after trimming and merging: float seconds."""

    speaker: str
    onset: float
    offset: float

    def md_eval_us(self) -> tuple[int, int]:
        """``(start, end)`` in µs as md-eval reads them from dscore's 3-decimal RTTM."""
        start = to_us(float(f"{round(self.onset, 3):.3f}"))
        duration = to_us(float(f"{round(self.offset - self.onset, 3):.3f}"))
        return start, start + duration


def md_eval_uem_us(regions: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
    """The UEM regions in µs as md-eval reads them from dscore's 3-decimal UEM file."""
    return [(to_us(float(f"{round(a, 3):.3f}")), to_us(float(f"{round(b, 3):.3f}")))
            for a, b in regions]


def trimmed_turns(turns: Sequence[RttmTurn],
                  regions: Sequence[tuple[float, float]]) -> list[DscoreTurn]:
    """``trim_turns`` then ``merge_turns`` of one file's turns over its UEM regions.

    Turns are cut at the edges of the union of the regions (touching regions form one
    stretch, so a turn across the touching point is not cut there). A speaker's turns
    are merged only when two of them strictly overlap; as in dscore, when nothing merges
    the turns are kept as they are, exact duplicates included.

    >>> t = [RttmTurn.from_seconds("f", 1.0, 3.0, "A"), RttmTurn.from_seconds("f", 4.0, 3.0, "A")]
    >>> [(x.onset, x.offset) for x in trimmed_turns(t, [(0.0, 2.0), (2.0, 6.0)])]
    [(1.0, 4.0), (4.0, 6.0)]
    >>> t.append(RttmTurn.from_seconds("f", 3.5, 1.0, "A"))
    >>> [(x.onset, x.offset) for x in trimmed_turns(t, [(0.0, 5.0)])]
    [(1.0, 5.0)]
    """
    stretches = _union(regions)
    pieces: dict[str, list[tuple[float, float]]] = {}
    for turn in turns:
        for low, high in stretches:
            # dscore's offset is onset + duration in float seconds, as it reads them
            onset, offset = max(turn.start, low), min(turn.start + turn.duration, high)
            if offset > onset:
                pieces.setdefault(turn.speaker, []).append((onset, offset))
    result: list[DscoreTurn] = []
    for speaker in sorted(pieces):
        spans = pieces[speaker]
        unique = sorted(set(spans))
        merged = _strict_merge(unique)
        kept = merged if len(merged) < len(unique) else spans
        result.extend(DscoreTurn(speaker, onset, offset) for onset, offset in kept)
    return result


def framed_jer(ref: Sequence[DscoreTurn], hyp: Sequence[DscoreTurn],
               regions: Sequence[tuple[float, float]], where: str) -> JerComponents:
    """dscore's JER of one file on 10 ms frames (see the module); ``where`` names the file
    in the error dscore would stop with.

    Hand check: UEM [0, 0.05] is frames 0-4. Reference A [0, 0.03) is frames 0-2; system X
    [0.015, 0.05) is frames 2-4 (0.02 is the first frame at or after 0.015). Intersection
    1 frame, union 5: JER 1 - 1/5 = 0.8.

    >>> framed_jer([DscoreTurn("A", 0.0, 0.03)], [DscoreTurn("X", 0.015, 0.05)],
    ...            [(0.0, 0.05)], "f")
    JerComponents(speaker_error_sum=0.8, speakers=1)
    """
    ref_frames = _frames(ref, regions)
    hyp_frames = _frames(hyp, regions)
    ref_durs, hyp_durs = ref_frames.sum(axis=0), hyp_frames.sum(axis=0)
    n_ref, n_hyp = ref_durs.size, hyp_durs.size
    if n_ref == 0:
        return JerComponents(0.0, 0)
    if n_hyp == 0:
        return JerComponents(float(n_ref), n_ref)
    intersect = ref_frames.T.astype(np.int64) @ hyp_frames.astype(np.int64)
    union = ref_durs[:, None] + hyp_durs[None, :] - intersect
    if np.any(union == 0):
        raise InputError(f"file {where!r}: a reference and a system speaker both have no "
                         "10 ms frame inside the UEM, where dscore's JER is 0/0 (dscore "
                         "stops here)")
    errors = 1.0 - intersect / union
    rows, cols = linear_sum_assignment(errors)
    per_speaker = np.ones(n_ref)
    per_speaker[rows] = errors[rows, cols]
    return JerComponents(float(per_speaker.sum()), n_ref)


def _frames(turns: Sequence[DscoreTurn],
            regions: Sequence[tuple[float, float]]) -> NDArray[np.int32]:
    """``turns_to_frames``: (frames inside the UEM, speakers) 0/1 matrix, speakers sorted."""
    n_frames = int(max(end for _, end in regions) / FRAME_STEP_S)
    times = FRAME_STEP_S * np.arange(n_frames)
    names = sorted({turn.speaker for turn in turns})
    column = {name: k for k, name in enumerate(names)}
    labels = np.zeros((n_frames, len(names)), dtype=np.int32)
    begins = np.searchsorted(times, [turn.onset for turn in turns])
    ends = np.searchsorted(times, [turn.offset for turn in turns])
    for begin, end, turn in zip(begins, ends, turns, strict=True):
        labels[begin:end, column[turn.speaker]] = 1
    keep = np.zeros(n_frames, dtype=bool)
    for onset, offset in regions:
        begin, end = np.searchsorted(times, (onset, offset))
        keep[begin:end] = True
    frames: NDArray[np.int32] = labels[keep]
    return frames


def _union(regions: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Sorted regions with touching or overlapping ones joined."""
    joined: list[tuple[float, float]] = []
    for low, high in sorted(regions):
        if joined and low <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(joined[-1][1], high))
        else:
            joined.append((low, high))
    return joined


def _strict_merge(spans: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Join sorted spans that strictly overlap (touching spans stay apart)."""
    merged: list[tuple[float, float]] = []
    for low, high in spans:
        if merged and low < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged
