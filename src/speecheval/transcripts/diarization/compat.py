"""What each definition scores in one file: speecheval's, md-eval-22's or dscore's.

A :class:`FileView` holds the sweep of one file (:mod:`.partition`) and, as masks on its
elementary intervals, the UEM, the DER scoring region (``scored``) and its
overlap-excluded part (``single``), with the JER the definition gives:

* ``speecheval``: a speaker's self-overlapping turns merged; ``scored`` is the UEM minus
  ``±collar`` around the merged reference boundaries; ``single`` drops intervals with
  two or more distinct reference speakers; JER (dscore's definition) over the UEM in
  continuous time.
* ``md-eval``: md-eval-22's regions from the turns as read (:mod:`.md_eval`); speaker
  activity as md-eval counts it (a speaker once, however many of its turns are active);
  files without reference turns are not scored. md-eval has no JER: speecheval's.
* ``dscore``: the turns cut at the UEM edges, merged and written to three decimals, then
  md-eval's regions on that (:mod:`.dscore`); JER on dscore's 10 ms frames.

Every view also counts the :class:`~.differences.Differences` of the file, from the
input as given, so the result says where the other definitions would differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...core.timebase import to_us
from ...core.timeline import Spans
from ..formats.rttm import RttmTurn
from .differences import Differences, Occurrence
from .dscore import FRAME_STEP_US, framed_jer, md_eval_uem_us, trimmed_turns
from .md_eval import (
    Interval,
    as_spans,
    collared_region,
    difference,
    length,
    overlap_zones,
    record_order,
    single_speaker_region,
    tie_sensitive_seconds,
)
from .metrics import jer_components
from .partition import Partition, collar_zones, coverage, covered, partition
from .result import Compat, JerComponents
from .turns import SpeakerTurns, speaker_turns, turn_spans


@dataclass(frozen=True, eq=False)
class FileView:
    """One file as a definition scores it (see the module)."""

    ref: SpeakerTurns
    hyp: SpeakerTurns
    part: Partition
    uem: NDArray[np.bool_]
    scored: NDArray[np.bool_]
    single: NDArray[np.bool_]
    jer: JerComponents
    differences: Differences


@dataclass(frozen=True, eq=False)
class _MdEvalRegions:
    """md-eval-22's scoring and ``-1`` regions of one file, and what is odd about them."""

    scored: list[Interval]
    single: list[Interval]
    defect: Occurrence
    tie_order: Occurrence


def file_view(compat: Compat, file_id: str, ref_turns: Sequence[RttmTurn],
              hyp_turns: Sequence[RttmTurn], regions: Sequence[tuple[float, float]],
              collar_us: int) -> FileView:
    """Score-ready view of one file under ``compat`` (see the module)."""
    uem_us = [(to_us(start), to_us(end)) for start, end in regions]
    given_ref = speaker_turns(turn_spans(ref_turns))
    given_hyp = speaker_turns(turn_spans(hyp_turns))
    if compat == "dscore":
        cut_ref, cut_hyp = trimmed_turns(ref_turns, regions), trimmed_turns(hyp_turns, regions)
        ref = _md_eval_input([t.speaker for t in cut_ref], [t.md_eval_us() for t in cut_ref])
        hyp = _md_eval_input([t.speaker for t in cut_hyp], [t.md_eval_us() for t in cut_hyp])
        md_uem = md_eval_uem_us(regions)
    else:
        ref, hyp, md_uem = given_ref, given_hyp, uem_us
    md_eval = _md_eval_regions(ref, md_uem, collar_us)
    uem_spans = as_spans(md_uem)
    if compat == "speecheval":
        boundaries = np.concatenate([ref.starts, ref.ends])
        part = partition(ref, hyp, {"uem": uem_spans,
                                    "collar": collar_zones(boundaries, collar_us)})
        uem = part.inside["uem"]
        scored = uem & ~part.inside["collar"]
        single = scored & (part.n_ref < 2)
    else:
        part = partition(ref, hyp, {"uem": uem_spans, "scored": as_spans(md_eval.scored),
                                    "single": as_spans(md_eval.single)})
        uem, scored, single = part.inside["uem"], part.inside["scored"], part.inside["single"]
    jer = (framed_jer(cut_ref, cut_hyp, regions, file_id) if compat == "dscore"
           else jer_components(part, uem))
    given_uem = as_spans(uem_us)
    differences = Differences(
        reference_self_overlap=self_overlap(given_ref),
        reference_cut_at_uem=cut_at_uem(given_ref, given_uem) if collar_us else Occurrence(),
        off_frame_grid=off_grid(np.concatenate([given_ref.raw_starts, given_ref.raw_ends,
                                                given_hyp.raw_starts, given_hyp.raw_ends]),
                                given_uem),
        md_eval_overlap_defect=md_eval.defect,
        tie_order=md_eval.tie_order,
        unscored_files=_unscored(ref, hyp, uem_spans),
    )
    return FileView(ref=ref, hyp=hyp, part=part, uem=uem, scored=scored, single=single,
                    jer=jer, differences=differences)


def _md_eval_input(names: list[str], spans: list[tuple[int, int]]) -> SpeakerTurns:
    return speaker_turns(Spans(np.array([a for a, _ in spans], dtype=np.int64),
                               np.array([b for _, b in spans], dtype=np.int64), labels=names))


def _md_eval_regions(ref: SpeakerTurns, uem: list[Interval], collar_us: int) -> _MdEvalRegions:
    """md-eval's regions over the reference records as md-eval reads them."""
    if ref.raw_starts.size == 0:  # md-eval does not score a file without reference turns
        return _MdEvalRegions([], [], Occurrence(), Occurrence())
    boundaries = np.concatenate([ref.raw_starts, ref.raw_ends])
    scored = collared_region(uem, boundaries, collar_us)
    records = record_order(ref.raw_starts, ref.raw_ends)
    single = single_speaker_region(scored, records)
    correct = difference(scored, overlap_zones(records))
    wrong = difference(single, correct) + difference(correct, single)
    ties = tie_sensitive_seconds(scored, records)
    return _MdEvalRegions(scored, single, Occurrence(len(wrong), length(wrong)),
                          Occurrence(1, ties) if ties else Occurrence())


def _unscored(ref: SpeakerTurns, hyp: SpeakerTurns, uem: Spans) -> Occurrence:
    """A file md-eval skips (no reference record), with the system speaker time in it."""
    if ref.raw_starts.size or hyp.starts.size == 0:
        return Occurrence()
    bounds = np.unique(np.concatenate([hyp.starts, hyp.ends, uem.starts, uem.ends]))
    active = coverage(bounds, hyp.starts, hyp.ends, hyp.speakers, len(hyp.labels)) > 0
    inside = covered(bounds, uem)
    return Occurrence(1, int(np.diff(bounds)[inside] @ active[inside].sum(axis=1)))


def self_overlap(turns: SpeakerTurns) -> Occurrence:
    """Self-overlap merges, and the time a speaker has two or more of its own turns."""
    if turns.counts.merges == 0:
        return Occurrence()
    bounds = np.unique(np.concatenate([turns.raw_starts, turns.raw_ends]))
    counts = coverage(bounds, turns.raw_starts, turns.raw_ends, turns.raw_speakers,
                      len(turns.labels))
    return Occurrence(turns.counts.merges, int(np.diff(bounds) @ (counts >= 2).sum(axis=1)))


def cut_at_uem(turns: SpeakerTurns, uem: Spans) -> Occurrence:
    """Reference turns with time both inside and outside the UEM, and the time outside."""
    starts, ends = turns.raw_starts, turns.raw_ends
    bounds = np.unique(np.concatenate([starts, ends, uem.starts, uem.ends]))
    inside = covered(bounds, uem)
    durations = np.diff(bounds)
    count = outside_us = 0
    for lo, hi in zip(np.searchsorted(bounds, starts), np.searchsorted(bounds, ends),
                      strict=True):
        part_inside = inside[lo:hi]
        if part_inside.any() and not part_inside.all():
            count += 1
            outside_us += int(durations[lo:hi][~part_inside].sum())
    return Occurrence(count, outside_us)


def off_grid(boundaries: NDArray[np.int64], uem: Spans) -> Occurrence:
    """Boundaries inside the UEM off the 10 ms grid, and their total shift to the next
    grid point (dscore's frame ``i`` starts at ``0.01 i``; a turn counts from the first
    frame at or after its onset and up to the last before its offset)."""
    lo, hi = uem.starts, uem.ends  # sorted, never overlapping
    region = np.searchsorted(lo, boundaries, side="right") - 1
    inside = (region >= 0) & (boundaries <= hi[np.maximum(region, 0)]) if lo.size else (
        np.zeros(boundaries.size, dtype=bool))
    remainder = boundaries[inside] % FRAME_STEP_US
    off = remainder != 0
    return Occurrence(int(np.count_nonzero(off)), int((FRAME_STEP_US - remainder[off]).sum()))

