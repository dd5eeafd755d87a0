"""A long file's region totals summed over pieces of its timeline, two pieces at a time.

Every total of a scoring region (:class:`.metrics.RegionTotals`: each speaker's time,
the co-occurrence of two speakers, ``min(R, H)``, the region's length) is a sum over the
instants of the region. Cut the timeline at a few instants, give each piece the
regions cut to it and the merged turns that reach into it, and the pieces' totals add up
to the file's, exactly: they are whole microseconds, and every instant of a region is in
one piece. (A turn that reaches out of its piece needs no cutting: outside the piece,
the cut regions weigh nothing.)

Why: the sweep of a million turns a side (:mod:`.partition`) is a few large sorts and
searches over arrays of four million edges. Cut into ``n // TURNS_PER_PIECE`` pieces
(``n`` merged turns of both sides; so a piece holds ``TURNS_PER_PIECE`` to twice as many),
the same work is done on smaller arrays, two pieces at once on two cores (numpy lets go of
the interpreter lock inside each of those operations), and the arrays alive at once are
those of two pieces, not of the whole file. A file of fewer than twice
``TURNS_PER_PIECE`` merged turns is one piece, scored as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.results import FieldwiseSum
from ...core.timeline import Spans
from . import interval_sets as sets
from .interval_sets import _FAR_FUTURE, _FAR_PAST, Intervals
from .metrics import RegionTotals, region_totals
from .partition import partition

TURNS_PER_PIECE = 1 << 17  # a file of n merged turns (both sides) has n // this many pieces
THREADS = 2  # pieces scored at once


@dataclass(frozen=True, eq=False)
class Regions:
    """The normalised sets (:mod:`.interval_sets`) whose totals are wanted: the UEM, the
    DER scoring region and its overlap-excluded part; ``single`` is ``None`` for
    speecheval's own definition, where the overlap-excluded part is the scoring region
    minus the intervals with two or more reference speakers."""

    uem: Intervals
    scored: Intervals
    single: Intervals | None


@dataclass(frozen=True, eq=False)
class Totals(FieldwiseSum):
    """The totals of the three regions of :class:`Regions` (pieces' totals add up)."""

    uem: RegionTotals
    scored: RegionTotals
    single: RegionTotals


def region_totals_in_pieces(ref: Spans, hyp: Spans, regions: Regions, *,
                            turns_per_piece: int | None = None) -> Totals:
    """The totals of ``regions`` over one file's merged ``ref`` and ``hyp`` turns
    (labelled by speaker), scored in pieces of about ``turns_per_piece`` turns (default
    :data:`TURNS_PER_PIECE`; see the module); the result does not depend on the pieces.

    Reference A [0, 10), system X [2, 12), all of [0, 12) scored; two starts (0 and 2),
    one a piece: 2 // 1 = 2 pieces, cut at the start of rank 1, which is 2. A's time is
    2 + 8 = 10, and A with X 0 + 8 = 8 (all of [2, 10) is in the second piece):

    >>> turns = lambda start, end, name: Spans([start], [end], labels=[name])
    >>> whole = np.array([[0, 12]])
    >>> totals = region_totals_in_pieces(turns(0, 10, "A"), turns(2, 12, "X"),
    ...                                  Regions(whole, whole, None), turns_per_piece=1)
    >>> totals.uem.ref_time.tolist(), totals.uem.cooccurrence.tolist(), totals.uem.region_us
    ([10], [[8]], 12)
    """
    windows = piece_windows(ref, hyp, turns_per_piece or TURNS_PER_PIECE)
    if len(windows) == 1:
        return _piece_totals(ref, hyp, regions, windows[0])
    from concurrent.futures import ThreadPoolExecutor  # here: it imports logging

    with ThreadPoolExecutor(THREADS, thread_name_prefix="der-piece") as pool:
        try:
            parts = list(pool.map(lambda window: _piece_totals(ref, hyp, regions, window),
                                  windows))
        finally:  # the pieces not started yet when one fails (or on Ctrl-C)
            pool.shutdown(cancel_futures=True)
    # started from the first part: 0 + Totals works (FieldwiseSum), but a plain sum() types
    # as Totals | Literal[0], and no zero Totals exists (its arrays are sized by speaker)
    return sum(parts[1:], parts[0])


def piece_windows(ref: Spans, hyp: Spans, turns_per_piece: int) -> list[tuple[int, int]]:
    """``[low, high)`` of each piece, in order, from the far past to the far future: cuts
    at the turn starts that split the turns of both sides into runs of about
    ``turns_per_piece`` (``np.partition`` finds them without sorting every start).

    >>> spans = Spans([0, 10, 20, 30], [5, 15, 25, 35])
    >>> [(low, high) for low, high in piece_windows(spans, Spans.empty(), 2)][1]
    (20, 9223372036854775807)
    """
    starts = np.concatenate([ref.starts, hyp.starts])
    pieces = starts.size // turns_per_piece
    if pieces < 2:
        return [(_FAR_PAST, _FAR_FUTURE)]
    ranks = [starts.size * k // pieces for k in range(1, pieces)]
    cuts = sorted(set(np.partition(starts, ranks)[ranks].tolist()))
    return list(zip([_FAR_PAST, *cuts], [*cuts, _FAR_FUTURE], strict=True))


def _piece_totals(ref: Spans, hyp: Spans, regions: Regions,
                  window: tuple[int, int]) -> Totals:
    """The totals of one piece: its turns swept, its regions weighed (the order and the
    ``del`` keep one region's prefix sums alive at a time)."""
    part = partition(turns_reaching(ref, window), turns_reaching(hyp, window))
    uem = region_totals(part, part.region(_clipped_set(regions.uem, window)))
    scored_region = part.region(_clipped_set(regions.scored, window))
    scored = region_totals(part, scored_region)
    single_region = (scored_region.without(part.n_ref >= 2, reuse=True)
                     if regions.single is None
                     else part.region(_clipped_set(regions.single, window)))
    del scored_region
    return Totals(uem, scored, region_totals(part, single_region))


def turns_reaching(turns: Spans, window: tuple[int, int]) -> Spans:
    """The turns that reach into ``[low, high)``, in their order (all of them for the
    whole timeline). They are not cut at the window's edges: outside the window the
    regions, which are cut to it, weigh nothing.

    >>> part = turns_reaching(Spans([0, 4, 9], [3, 8, 12], labels=["a", "b", "a"]), (3, 9))
    >>> part.starts.tolist(), part.ends.tolist(), part.label_ids.tolist(), part.label_names
    ([4], [8], [1], ('a', 'b'))
    """
    low, high = window
    if low == _FAR_PAST and high == _FAR_FUTURE:
        return turns
    inside = turns.starts < high
    inside &= turns.ends > low
    return turns._take(inside)


def _clipped_set(given: Intervals, window: tuple[int, int]) -> Intervals:
    low, high = window
    if low == _FAR_PAST and high == _FAR_FUTURE:
        return given
    return sets.intersection(given, np.array([window], dtype=np.int64))
