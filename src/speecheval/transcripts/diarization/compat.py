"""What each definition scores in one file: speecheval's, md-eval-22's or dscore's.

A :class:`FileView` holds the region totals of one file (swept in pieces of its timeline,
:mod:`.pieces`) for the UEM, the DER scoring region (``scored``) and its overlap-excluded
part (``single``), with the JER the definition gives:

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
from . import in_parallel
from . import interval_sets as sets
from .differences import Differences, Occurrence
from .dscore import FRAME_STEP_US, framed_jer, md_eval_uem_us, trimmed_turns
from .interval_sets import Interval, Intervals
from .md_eval import (
    as_spans,
    collared_region,
    record_zones,
    single_speaker_regions,
    tie_sensitive_seconds,
)
from .metrics import RegionTotals, jer_components
from .pieces import Regions, region_totals_in_pieces
from .result import Compat, JerComponents, TurnCounts
from .turns import SpeakerTurns, speaker_turns

_CHUNK = 1 << 18  # turns or boundaries at a time (the temporaries of a pass stay small)


@dataclass(frozen=True, eq=False)
class FileView:
    """One file as a definition scores it (see the module): the speakers and turn counts
    of both sides (not the turns: they are freed once swept), and the totals of its four
    regions (the UEM, the DER scoring region, its overlap-excluded part and the rest of
    it, reference overlap only)."""

    ref_labels: tuple[str, ...]
    hyp_labels: tuple[str, ...]
    ref_counts: TurnCounts
    hyp_counts: TurnCounts
    uem: RegionTotals
    scored: RegionTotals
    single: RegionTotals
    overlap: RegionTotals
    jer: JerComponents
    differences: Differences


@dataclass(frozen=True, eq=False)
class _MdEvalRegions:
    """md-eval-22's scoring and ``-1`` regions of one file, and what is odd about them."""

    scored: Intervals
    single: Intervals
    defect: Occurrence
    tie_order: Occurrence


def file_view(compat: Compat, file_id: str, ref_turns: Spans, hyp_turns: Spans,
              regions: Sequence[tuple[float, float]], collar_us: int) -> FileView:
    """Score-ready view of one file under ``compat`` (see the module); the turns are the
    file's as read, labelled by speaker."""
    uem_us = [(to_us(start), to_us(end)) for start, end in regions]
    turns = len(ref_turns) + len(hyp_turns)
    given_ref, given_hyp = in_parallel.both(lambda: speaker_turns(ref_turns),
                                            lambda: speaker_turns(hyp_turns), turns=turns)
    if compat == "dscore":
        cut_ref = trimmed_turns(_turn_objects(file_id, ref_turns), regions)
        cut_hyp = trimmed_turns(_turn_objects(file_id, hyp_turns), regions)
        ref = _md_eval_input([t.speaker for t in cut_ref], [t.md_eval_us() for t in cut_ref])
        hyp = _md_eval_input([t.speaker for t in cut_hyp], [t.md_eval_us() for t in cut_hyp])
        md_uem = md_eval_uem_us(regions)
    else:
        ref, hyp, md_uem = given_ref, given_hyp, uem_us
    md_eval, of_the_input = in_parallel.both(  # first: the sweep's arrays are not alive yet
        lambda: _md_eval_regions(ref, md_uem, collar_us),
        lambda: _input_differences(given_ref, given_hyp, as_spans(uem_us), collar_us),
        turns=turns)
    uem_set = sets.normalized(md_uem)
    differences = of_the_input + Differences(
        md_eval_overlap_defect=md_eval.defect,
        tie_order=md_eval.tie_order,
        unscored_files=_unscored(ref, hyp, uem_set),
    )
    if compat == "speecheval":
        scored_set, single_set = _collared(uem_set, ref, md_eval, collar_us), None
    else:
        scored_set = sets.normalized(md_eval.scored)
        single_set = sets.normalized(md_eval.single)
    del md_eval  # before the sweep: what is alive at once decides the peak memory
    totals = region_totals_in_pieces(ref.merged, hyp.merged,
                                     Regions(uem_set, scored_set, single_set))
    # md-eval's -1 region lies inside its scoring region (a region it opens closes at the
    # latest where the scoring region ends), so the overlap-only totals are the rest
    only = totals.scored - totals.single
    jer = (framed_jer(cut_ref, cut_hyp, regions, file_id) if compat == "dscore"
           else jer_components(totals.uem))
    return FileView(ref_labels=ref.labels, hyp_labels=hyp.labels, ref_counts=ref.counts,
                    hyp_counts=hyp.counts, uem=totals.uem, scored=totals.scored,
                    single=totals.single, overlap=only, jer=jer, differences=differences)


def _input_differences(ref: SpeakerTurns, hyp: SpeakerTurns, uem: Spans,
                       collar_us: int) -> Differences:
    """What in the turns as given makes the tools' definitions differ (the rest of
    :class:`Differences` comes from md-eval's regions)."""
    return Differences(
        reference_self_overlap=self_overlap(ref),
        reference_cut_at_uem=cut_at_uem(ref, uem) if collar_us else Occurrence(),
        off_frame_grid=sum((off_grid(edges, uem) for edges in (
            ref.raw_starts, ref.raw_ends, hyp.raw_starts, hyp.raw_ends)), Occurrence()),
    )


def _collared(uem: Intervals, ref: SpeakerTurns, md_eval: _MdEvalRegions,
              collar_us: int) -> Intervals:
    """speecheval's scoring region: the UEM minus ``±collar`` around the merged reference
    boundaries. When merging changed no turn, those are md-eval's boundaries and its
    region is this one (the same set, already computed)."""
    if collar_us == 0:
        return uem
    if ref.counts.merges == 0 and ref.counts.empty == 0 and ref.raw_starts.size:
        return sets.normalized(md_eval.scored)
    boundaries = np.concatenate([ref.starts, ref.ends])
    return sets.intersection(uem, sets.outside_around(boundaries, collar_us))


def _turn_objects(file_id: str, turns: Spans) -> list[RttmTurn]:
    """The turns as objects, for dscore's per-turn float arithmetic."""
    return [RttmTurn(file_id, span) for span in turns]


def _md_eval_input(names: list[str], spans: list[tuple[int, int]]) -> SpeakerTurns:
    return speaker_turns(Spans(np.array([a for a, _ in spans], dtype=np.int64),
                               np.array([b for _, b in spans], dtype=np.int64), labels=names))


def _md_eval_regions(ref: SpeakerTurns, uem: list[Interval], collar_us: int) -> _MdEvalRegions:
    """md-eval's regions over the reference records as md-eval reads them."""
    if ref.raw_starts.size == 0:  # md-eval does not score a file without reference turns
        nothing = sets.intervals([])
        return _MdEvalRegions(nothing, nothing, Occurrence(), Occurrence())
    boundaries = np.concatenate([ref.raw_starts, ref.raw_ends])
    scored = collared_region(uem, boundaries, collar_us)
    del boundaries
    # the records in any order (md-eval's midpoint order changes no zone)
    single, correct = single_speaker_regions(scored, record_zones(ref.raw_starts, ref.raw_ends))
    defect = _defect(single, correct)
    del correct  # before the second sweep: what is alive at once decides the peak
    ties = tie_sensitive_seconds(scored, None, ends_first_region=single,
                                 begins_first_zones=record_zones(
                                     ref.raw_starts, ref.raw_ends, ends_first=False))
    return _MdEvalRegions(scored, single, defect, Occurrence(1, ties) if ties else Occurrence())


def _defect(single: Intervals, correct: Intervals) -> Occurrence:
    """Where md-eval's ``-1`` region and the correct one (the scoring region minus the
    overlap zones, normalised) differ, as intervals and time; when they are the same set
    (the common case: no "stuck" loop), nothing is subtracted."""
    if np.array_equal(sets.normalized(single), correct):
        return Occurrence()
    wrong = np.concatenate([sets.difference(single, correct),
                            sets.difference(correct, single)])
    return Occurrence(len(wrong), sets.length(wrong))


def _unscored(ref: SpeakerTurns, hyp: SpeakerTurns, uem_set: Intervals) -> Occurrence:
    """A file md-eval skips (no reference record), with the system speaker time in it
    (``uem_set`` normalised: the set the sweep weighs, not normalised again here)."""
    if ref.raw_starts.size or hyp.starts.size == 0:
        return Occurrence()
    # a speaker's merged turns are disjoint: its time inside the UEM is their overlap with it
    return Occurrence(1, int(_time_inside(uem_set, hyp.starts, hyp.ends).sum()))


def _time_inside(uem_set: Intervals, starts: NDArray[np.int64],
                 ends: NDArray[np.int64]) -> NDArray[np.int64]:
    """Each turn's time inside the normalised set: the part of the set before its end
    minus the part before its start (one search per edge, no interval arithmetic)."""
    return sets.covered_before(uem_set, ends) - sets.covered_before(uem_set, starts)


def self_overlap(turns: SpeakerTurns) -> Occurrence:
    """Self-overlap merges, and the time a speaker has two or more of its own turns: the
    overlap zones of each speaker whose turns were merged, one speaker at a time (the
    turns grouped by speaker with one sort of small codes)."""
    if turns.counts.merges == 0:
        return Occurrence()
    raw, n_speakers = turns.raw, len(turns.labels)
    timed = np.bincount(raw.label_ids[raw.ends > raw.starts], minlength=n_speakers)
    merged = np.flatnonzero(timed > np.bincount(turns.merged.label_ids, minlength=n_speakers))
    order = np.argsort(_small(raw.label_ids), kind="stable")
    first = np.concatenate([[0], np.cumsum(np.bincount(raw.label_ids, minlength=n_speakers))])
    us = 0
    for speaker in merged.tolist():
        rows = order[first[speaker]:first[speaker + 1]]
        us += sets.length(record_zones(raw.starts[rows], raw.ends[rows]))
    return Occurrence(turns.counts.merges, us)


def _small(codes: NDArray[np.integer]) -> NDArray[np.integer]:
    """Non-negative codes in the smallest integer type that holds them (numpy sorts 16-bit
    integers stably by radix, in linear time).

    >>> _small(np.array([3, 0, 2])).dtype
    dtype('int16')
    """
    return codes.astype(np.int16) if codes.size == 0 or codes.max() < 1 << 15 else codes


def cut_at_uem(turns: SpeakerTurns, uem: Spans) -> Occurrence:
    """Reference turns with time both inside and outside the UEM, and the time outside
    (a chunk of turns at a time: this runs beside md-eval's regions, at the peak)."""
    uem_set = sets.normalized(np.stack([uem.starts, uem.ends], axis=1))
    count, outside_us = 0, 0
    for at in range(0, turns.raw_starts.size, _CHUNK):
        starts, ends = turns.raw_starts[at:at + _CHUNK], turns.raw_ends[at:at + _CHUNK]
        inside = _time_inside(uem_set, starts, ends)
        outside = (ends - starts) - inside
        cut = (inside > 0) & (outside > 0)
        count += int(np.count_nonzero(cut))
        outside_us += int(outside[cut].sum())
    return Occurrence(count, outside_us)


def off_grid(boundaries: NDArray[np.int64], uem: Spans) -> Occurrence:
    """Boundaries inside the UEM off the 10 ms grid, and their total shift to the next
    grid point (dscore's frame ``i`` starts at ``0.01 i``; a turn counts from the first
    frame at or after its onset and up to the last before its offset)."""
    lo, hi = uem.starts, uem.ends  # sorted, never overlapping
    count, shift = 0, 0
    for at in range(0, boundaries.size, _CHUNK):
        chunk = boundaries[at:at + _CHUNK]
        region = np.searchsorted(lo, chunk, side="right") - 1
        inside = (region >= 0) & (chunk <= hi[np.maximum(region, 0)]) if lo.size else (
            np.zeros(chunk.size, dtype=bool))
        remainder = chunk[inside] % FRAME_STEP_US
        off = remainder != 0
        count += int(np.count_nonzero(off))
        shift += int((FRAME_STEP_US - remainder[off]).sum())
    return Occurrence(count, shift)
