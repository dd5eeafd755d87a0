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
from .partition import collar_zones

Interval = tuple[int, int]

_BEG, _END = "BEG", "END"


def collared_region(uem: Sequence[Interval], boundaries: NDArray[np.int64],
                    collar_us: int) -> list[Interval]:
    """md-eval's scoring region: the UEM regions minus ``±collar`` around ``boundaries``.

    With collar 0 md-eval uses its UEM regions as they are (touching regions stay apart);
    otherwise ``add_collars_to_uem`` returns maximal intervals, touching ones joined.

    >>> collared_region([(0, 10), (10, 20)], np.array([4, 12]), 1)
    [(0, 3), (5, 11), (13, 20)]
    >>> collared_region([(0, 10), (10, 20)], np.array([4]), 0)
    [(0, 10), (10, 20)]
    """
    regions = [(start, end) for start, end in uem if end > start]
    if collar_us == 0:
        return regions
    kept: list[Interval] = as_spans(regions).difference(
        collar_zones(boundaries, collar_us)).to_tuples()
    return kept


def single_speaker_region(scored: Sequence[Interval], turns: Sequence[Interval], *,
                          ends_first: bool = True) -> list[Interval]:
    """md-eval's ``-1`` region: ``scored`` minus its overlap zones, with md-eval's loop.

    ``turns`` are the reference records of one file in md-eval's order (by midpoint);
    ``ends_first`` orders events of one instant ends before begins (see the module).
    Hand check (item 21): A 0-10, B 2-5, B 5-20 over [0, 8]; the overlap zones are [2, 5]
    and [5, 10], and md-eval keeps [5, 8] although it is overlap.

    >>> single_speaker_region([(0, 8)], [(0, 10), (2, 5), (5, 20)])
    [(0, 2), (5, 8)]
    >>> single_speaker_region([(0, 30)], [(0, 10), (2, 5), (5, 20)])
    [(0, 2), (10, 30)]
    """
    zones = overlap_zones(turns, ends_first=ends_first)
    events = [(start, "NSZ", _BEG) for start, _ in zones]
    events += [(end, "NSZ", _END) for _, end in zones]
    events += [(start, "UEM", _BEG) for start, end in scored if end > start]
    events += [(end, "UEM", _END) for start, end in scored if end > start]
    region: list[Interval] = []
    uem_count = zone_count = 0
    evaluating, start = False, 0
    for time, kind, edge in _sorted(events, ends_first):
        step = 1 if edge == _BEG else -1
        if kind == "UEM":
            uem_count += step
        else:
            zone_count += step
        if evaluating and (uem_count == 0 or zone_count > 0) and time > start:
            region.append((start, time))
            evaluating = False
        elif uem_count > 0 and zone_count == 0:
            start, evaluating = time, True
    return region


def overlap_zones(turns: Sequence[Interval], *, ends_first: bool = True) -> list[Interval]:
    """Where two or more reference records overlap (any speakers), as md-eval finds it:
    a zone opens when the record count reaches 2 and closes when it falls back to 1.

    >>> overlap_zones([(0, 10), (2, 5), (5, 20)])
    [(2, 5), (5, 10)]
    """
    events = [(start, "SEG", _BEG) for start, end in turns if end > start]
    events += [(end, "SEG", _END) for start, end in turns if end > start]
    zones: list[Interval] = []
    count, zone_start = 0, 0
    for time, _kind, edge in _sorted(events, ends_first):
        if edge == _BEG:
            count += 1
            if count == 2:
                zone_start = time
        else:
            count -= 1
            if count == 1:
                zones.append((zone_start, time))
    return zones


def record_order(starts: NDArray[np.int64], ends: NDArray[np.int64]) -> list[Interval]:
    """Reference records in md-eval's order: sorted by midpoint, ties in input order."""
    order = np.argsort(starts + ends, kind="stable")
    return [(int(starts[i]), int(ends[i])) for i in order]


def as_spans(intervals: Sequence[Interval]) -> Spans:
    """Intervals as the spans :func:`.partition.partition` takes."""
    return Spans(np.array([a for a, _ in intervals], dtype=np.int64).reshape(-1),
                 np.array([b for _, b in intervals], dtype=np.int64).reshape(-1))


def length(intervals: Sequence[Interval]) -> int:
    """Total length of disjoint intervals."""
    return sum(end - start for start, end in intervals)


def difference(a: Sequence[Interval], b: Sequence[Interval]) -> list[Interval]:
    """The parts of ``a`` outside ``b`` (both lists of intervals; may overlap each other).

    >>> difference([(0, 10)], [(2, 3), (5, 12)])
    [(0, 2), (3, 5)]
    """
    kept: list[Interval] = as_spans(a).difference(as_spans(b)).to_tuples()
    return kept


def tie_sensitive_seconds(scored: Sequence[Interval], turns: Sequence[Interval]) -> int:
    """Microseconds on which the ``-1`` region depends on the order of simultaneous events
    (0 when it does not): the symmetric difference of the two orders' results."""
    first = single_speaker_region(scored, turns, ends_first=True)
    second = single_speaker_region(scored, turns, ends_first=False)
    if first == second:
        return 0
    return length(difference(first, second)) + length(difference(second, first))


def _sorted(events: list[tuple[int, str, str]],
            ends_first: bool) -> list[tuple[int, str, str]]:
    """By time, then in list order, except at one instant: ends before begins, or with
    ``ends_first=False`` the begins of records and overlap zones first (scoring regions
    keep ends first: they reach md-eval already sorted, which Perl's sort keeps)."""
    def rank(event: tuple[int, str, str]) -> int:
        if ends_first:
            return 0 if event[2] == _END else 1
        if event[2] == _BEG:
            return 2 if event[1] == "UEM" else 0
        return 1
    return sorted(events, key=lambda event: (event[0], rank(event)))
