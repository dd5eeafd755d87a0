"""md-eval-22's scoring regions, reproduced for ``--compat md-eval`` (and dscore, which runs it).

Three things md-eval-22.pl does differ from speecheval's definition (module
:mod:`.score`), and ``--compat md-eval`` does them too:

* It keeps a speaker's self-overlapping reference turns apart (its check for them never
  fires: ``$prev_token`` is never set). Its collars (``add_collars_to_uem``) go around
  the start and the end of every reference ``SPEAKER`` record as read, so the inner
  boundaries of self-overlapping turns get collars, and so do zero-length records.
* Its ``-1`` region (``exclude_overlapping_speech_from_uem``) counts records, not
  speakers: wherever two records overlap, even of one speaker, is overlap.
* The loop that merges those overlap zones with the scoring regions can get stuck: when
  one overlap zone ends at the instant the next one begins, it keeps "evaluating" from
  that instant and closes the region at the next event, which is the end of the overlap
  only when nothing else comes first. If the scoring region ends first, the overlap up
  to there is scored although it is overlap (reference A 0-10, B 2-5, B 5-20 and UEM
  0-8: md-eval scores [0, 2] and [5, 8], 8.0 s of speaker time, where the overlap-free
  region is [0, 2], 2.0 s). :func:`single_speaker_region` runs the same loop.

Where md-eval sorts events of the same instant, its comparator leaves the order to Perl's
sort; this module takes ends before begins (what the comparator asks for when it decides
at all, and what Perl's sort gives for events that arrive in time order) and
:func:`tie_sensitive_seconds` says when an overlap zone or a record beginning at an
instant where something ends would change the result in the other order.

Times are integer microseconds throughout; md-eval's own float arithmetic agrees with them
to its printed precision.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from ...core.timeline import Spans
from .interval_sets import (
    Intervals,
    IntervalsLike,
    difference,
    intersection,
    intervals,
    length,
    normalized,
    outside_around,
)

_CHUNK = 1 << 18  # events at a time split or swept
# Event times are at most about 1e14 µs (RTTM and UEM times stop at 1e8 s), so a time
# and a list's place among up to 8 lists (its low 3 bits) pack into one int64 sort key.
_MAX_EVENT_US = 1 << 60
_PLACE_BITS = 3


def collared_region(uem: IntervalsLike, boundaries: NDArray[np.int64],
                    collar_us: int) -> Intervals:
    """md-eval's scoring region: the UEM regions minus ``±collar`` around ``boundaries``.

    With collar 0 md-eval uses its UEM regions as they are (touching regions stay apart);
    otherwise ``add_collars_to_uem`` returns maximal intervals, touching ones joined.

    >>> collared_region([(0, 10), (10, 20)], np.array([4, 12]), 1).tolist()
    [[0, 3], [5, 11], [13, 20]]
    >>> collared_region([(0, 10), (10, 20)], np.array([4]), 0).tolist()
    [[0, 10], [10, 20]]
    """
    regions = intervals(uem)
    regions = regions[regions[:, 1] > regions[:, 0]]
    if collar_us == 0:
        return regions
    return intersection(normalized(regions), outside_around(boundaries, collar_us))


def single_speaker_region(scored: IntervalsLike, turns: IntervalsLike | None, *,
                          ends_first: bool = True, zones: Intervals | None = None
                          ) -> Intervals:
    """md-eval's ``-1`` region: ``scored`` minus its overlap zones, with md-eval's loop.

    ``turns`` are the reference records of one file, in any order (md-eval sorts them by
    midpoint, but only the sorted begins and ends count here); ``ends_first`` orders
    events of one instant ends before begins (see the module);
    ``zones`` are the turns' overlap zones in that order, when known already (then
    ``turns`` may be None).
    Hand check (item 21): A 0-10, B 2-5, B 5-20 over [0, 8]; the overlap zones are [2, 5]
    and [5, 10], and md-eval keeps [5, 8] although it is overlap.

    >>> single_speaker_region([(0, 8)], [(0, 10), (2, 5), (5, 20)]).tolist()
    [[0, 2], [5, 8]]
    >>> single_speaker_region([(0, 30)], [(0, 10), (2, 5), (5, 20)]).tolist()
    [[0, 2], [10, 30]]

    md-eval's loop, event by event in sorted order, after updating the counts: if it is
    evaluating and the event leaves no scoring region or enters an overlap zone, and time
    has passed since ``start``, it closes ``[start, now]``; otherwise, if the event is
    inside a scoring region and outside every zone, it (re)starts evaluating from now.
    Every event is one of the two kinds (closing or opening), so the region closed is
    ``[t(last opening event), t(first later closing event at a later time)]``, and nothing
    when every closing event before the next opening one comes at the same instant (the
    "stuck" case of the module). That is what is computed here, without the loop.
    """
    if zones is None:
        if turns is None:
            raise ValueError("single_speaker_region needs the turns or their overlap zones")
        zones = overlap_zones(turns, ends_first=ends_first)
    times, opening = _sweep(scored, zones, ends_first)
    return _closed_by_the_loop(times, opening)


def single_speaker_regions(scored: IntervalsLike, zones: Intervals
                           ) -> tuple[Intervals, Intervals]:
    """md-eval's ``-1`` region (ends first, as :func:`single_speaker_region`) and the exact
    one, ``scored`` minus ``zones`` as a normalised set, from one sweep of the events: the
    exact region is every stretch between two events at different times after which no
    zone and some scoring region is open.

    >>> md_eval, exact = single_speaker_regions([(0, 8)], overlap_zones(
    ...     [(0, 10), (2, 5), (5, 20)]))
    >>> md_eval.tolist(), exact.tolist()
    ([[0, 2], [5, 8]], [[0, 2]])
    """
    times, opening = _sweep(scored, zones, True)
    return _closed_by_the_loop(times, opening), _open_runs(times, opening)


def _sweep(scored: IntervalsLike, zones: Intervals, ends_first: bool
           ) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """The events of the zones and the scoring regions in order (their times), and whether
    each leaves no zone and some scoring region open (:func:`_opening`)."""
    regions = intervals(scored)
    timed = regions[:, 1] > regions[:, 0]
    if not timed.all():  # the common case, all timed, makes no copy
        regions = regions[timed]
    del timed
    # event kinds: 0 zone begin, 1 zone end, 2 region begin, 3 region end; rank at one
    # instant: ends first: ends 0, begins 1; else: zone begins 0, ends 1, region begins 2
    times, kind = merged_events([zones[:, 0], zones[:, 1], regions[:, 0], regions[:, 1]],
                                [1, 0, 1, 0] if ends_first else [0, 1, 2, 1])
    del zones, regions
    return times, _opening(kind)


def _closed_by_the_loop(times: NDArray[np.int64], opening: NDArray[np.bool_]) -> Intervals:
    """What md-eval's loop closes (see :func:`single_speaker_region`): an opening event's
    region closes at the first event at a later time, when no other opening event comes
    before it (every event in between is a closing one)."""
    opens = np.flatnonzero(opening)
    later = np.empty(opens.size, dtype=np.intp)
    for at in range(0, opens.size, _CHUNK):  # a chunk at a time: no array of their times
        later[at:at + _CHUNK] = np.searchsorted(times, times[opens[at:at + _CHUNK]],
                                                side="right")
    closes = np.empty(opens.size, dtype=bool)
    np.less(later[:-1], opens[1:], out=closes[:-1])
    closes[-1:] = later[-1:] < times.size
    opens, later = opens[closes], later[closes]
    region = np.empty((opens.size, 2), dtype=np.int64)  # filled in place: no stacked copy
    region[:, 0] = times[opens]
    region[:, 1] = times[later]
    return region


def _open_runs(times: NDArray[np.int64], opening: NDArray[np.bool_]) -> Intervals:
    """The stretches ``[times[i], times[i + 1])`` after an opening event ``i`` (no zone,
    some scoring region), of positive length, joined where they touch: a normalised set.
    After the last event no scoring region is open, so it never opens a stretch."""
    starts = np.flatnonzero(opening[:-1] & (times[1:] > times[:-1]))
    if starts.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    # a stretch joins the one before when it starts where that one ends
    head = np.ones(starts.size, dtype=bool)
    np.not_equal(times[starts[1:]], times[starts[:-1] + 1], out=head[1:])
    firsts = starts[head]
    lasts = np.empty_like(firsts)
    lasts[:-1] = starts[np.flatnonzero(head)[1:] - 1]
    lasts[-1] = starts[-1]
    region = np.empty((firsts.size, 2), dtype=np.int64)
    region[:, 0] = times[firsts]
    region[:, 1] = times[lasts + 1]
    return region


def _opening(kind: NDArray[np.int8]) -> NDArray[np.bool_]:
    """Whether each event (kinds as in :func:`single_speaker_region`) leaves the count of
    zones at 0 and of regions above 0: running sums a chunk at a time, carried over."""
    steps = np.array([[1, -1, 0, 0], [0, 0, 1, -1]], dtype=np.int8)  # zone, region
    opening = np.empty(kind.size, dtype=bool)
    zones, regions = 0, 0
    for at in range(0, kind.size, _CHUNK):
        part = kind[at:at + _CHUNK]
        zone_count = np.cumsum(steps[0][part], dtype=np.int64)
        zone_count += zones
        region_count = np.cumsum(steps[1][part], dtype=np.int64)
        region_count += regions
        np.logical_and(zone_count == 0, region_count > 0, out=opening[at:at + _CHUNK])
        zones, regions = int(zone_count[-1]), int(region_count[-1])
    return opening


def overlap_zones(turns: IntervalsLike, *, ends_first: bool = True) -> Intervals:
    """Where two or more reference records overlap (any speakers), as md-eval finds it:
    a zone opens when the record count reaches 2 and closes when it falls back to 1.

    >>> overlap_zones([(0, 10), (2, 5), (5, 20)]).tolist()
    [[2, 5], [5, 10]]
    """
    records = intervals(turns)
    return record_zones(records[:, 0], records[:, 1], ends_first=ends_first)


def record_zones(starts: NDArray[np.int64], ends: NDArray[np.int64], *,
                 ends_first: bool = True) -> Intervals:
    """:func:`overlap_zones` of the records ``[starts[k], ends[k])``, given as two columns
    in any order (a file's turns as read: no array of pairs is made)."""
    timed = ends > starts
    starts, ends = np.sort(starts[timed]), np.sort(ends[timed])
    del timed
    # the record count after each begin and after each end, in event order: the events
    # before a begin are the begins before it and the ends before it (those at its instant
    # too when ends come first), and the other way round for an end
    ends_before = np.searchsorted(ends, starts, side="right" if ends_first else "left")
    at_begin = np.arange(1, starts.size + 1) - ends_before
    del ends_before
    begins_before = np.searchsorted(starts, ends, side="left" if ends_first else "right")
    at_end = begins_before - np.arange(1, ends.size + 1)
    del begins_before
    return np.stack([starts[at_begin == 2], ends[at_end == 1]], axis=1).astype(np.int64)


def as_spans(given: IntervalsLike) -> Spans:
    """Intervals as the spans :func:`.partition.partition` takes."""
    pairs = intervals(given)
    return Spans(pairs[:, 0], pairs[:, 1])


def tie_sensitive_seconds(scored: IntervalsLike, turns: IntervalsLike | None, *,
                          ends_first_region: Intervals | None = None,
                          begins_first_zones: Intervals | None = None) -> int:
    """Microseconds on which the ``-1`` region depends on the order of simultaneous events
    (0 when it does not): the symmetric difference of the two orders' results.
    ``ends_first_region`` is the ends-first result and ``begins_first_zones`` the overlap
    zones with begins first, when known already (with both, ``turns`` may be None)."""
    first = (single_speaker_region(scored, turns, ends_first=True)
             if ends_first_region is None
             else ends_first_region)
    second = single_speaker_region(scored, turns, ends_first=False, zones=begins_first_zones)
    if np.array_equal(first, second):
        return 0
    return length(difference(first, second)) + length(difference(second, first))


def merged_events(times: Sequence[NDArray[np.int64]], ranks: Sequence[int]
                  ) -> tuple[NDArray[np.int64], NDArray[np.int8]]:
    """Events of several lists (up to 8) in one order, as their times and the index of
    their list (their kind): by time, then by their list's rank, then by list, which is
    ``np.lexsort((rank, times))`` over the lists put end to end, as far as times and
    kinds tell (events of one list at one instant are alike).

    Each event is one int64 key, its time shifted left by 3 bits and its list's place
    among the lists at one instant in those bits; the keys are sorted in place, and split
    back into times and kinds a chunk at a time (a mask and an arithmetic shift, which
    floors negative times too; no division): no order array, no second array of keys.

    >>> merged_events([np.array([5, 2]), np.array([5, 2])], [1, 0])
    (array([2, 2, 5, 5]), array([1, 0, 1, 0], dtype=int8))
    """
    lists = len(ranks)
    if lists > 1 << _PLACE_BITS:
        raise ValueError(f"at most {1 << _PLACE_BITS} lists of events, got {lists}")
    kind_at = np.array(sorted(range(lists), key=lambda k: (ranks[k], k)), dtype=np.int8)
    keys = np.empty(sum(column.size for column in times), dtype=np.int64)
    at = 0
    for kind, column in enumerate(times):
        if column.size and int(np.abs(column).max()) >= _MAX_EVENT_US:
            raise OverflowError("event times too large to sort as packed keys")
        part = keys[at:at + column.size]
        np.left_shift(column, _PLACE_BITS, out=part)
        part |= int(np.flatnonzero(kind_at == kind)[0])
        at += column.size
    keys.sort()
    kinds = np.empty(keys.size, dtype=np.int8)
    for at in range(0, keys.size, _CHUNK):
        part = keys[at:at + _CHUNK]
        kinds[at:at + _CHUNK] = kind_at[part & ((1 << _PLACE_BITS) - 1)]
        part >>= _PLACE_BITS
    return keys, kinds
