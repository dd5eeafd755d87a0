"""Time spans in integer microseconds and their interval algebra, in one vectorised place.

Every benchmark measures stretches of time: speech found by a detector, annotated pauses,
speaker turns, scoring regions. They all use :class:`Span` (one stretch) or
:class:`Spans` (many, as columns of numpy arrays), so overlap, union and IoU are computed
once, here, and the same way everywhere.

Why integer microseconds: times read from files and models carry float noise
(6.32000000000005 against 6.32). Rounding every time to the microsecond on the way in
(:func:`speecheval.core.timebase.to_us`) makes "starts before", "touches" and "covers"
exact integer comparisons, and sums of durations exact over any number of files. Seconds
exist only at the edges: the ``from_seconds`` constructors, the ``*_s`` properties and
the seconds view below.

One float view, :data:`SecondsPair` (``(start_s, end_s)``, :attr:`Span.seconds`), is for
the two places that must not round to the microsecond: code that reproduces another
program's float arithmetic bit for bit (the official FDB v1.5 timing merges and
intersects float seconds), and pictures drawn from times finer than a microsecond (a
session's 16 kHz sample times, 62.5 us apart, on its timeline). It is a view, not a second
span type: nothing computes overlaps or unions on it.

Conventions:

- A span is half-open, ``[start_us, end_us)``; ``end_us >= start_us``. A zero-length span
  is a point in time: it covers no time, so the set operations leave it out.
- ``open_at_end`` says the span was still running when the observation ended (a speaker
  still talking when the recording stopped): its end is where we stopped looking, not
  where the speech stopped.
- ``label`` names what the span is of (a speaker, a word, a track); ``None`` is no label.
- The set operations (:meth:`Spans.union`, :meth:`Spans.intersection`,
  :meth:`Spans.difference`, :meth:`Spans.overlap_us`, :meth:`Spans.iou`,
  :meth:`Spans.covered_us`) treat a ``Spans`` as the set of instants it covers. They
  ignore labels unless a method says otherwise (``union(by_label=True)``); split by label
  first (:meth:`Spans.by_label`) to work per speaker.

Everything over many spans is vectorised: sorting, running maxima and ``searchsorted``,
never a Python loop per span and never an n x m matrix, so a million spans take well
under a second (``tests/core/test_timeline.py`` checks the speed).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

# Re-exported: the scalar span lives apart so that code without arrays skips numpy.
from .span import SecondsPair as SecondsPair
from .span import Span as Span
from .span import TimedRecord as TimedRecord
from .timebase import to_us_array

Int64Array = NDArray[np.int64]
# Label index of a span without a label.
NO_LABEL = -1


@dataclass(frozen=True, eq=False)
class Overlaps:
    """Pairs of spans that share time: ``first[k]`` of one set with ``second[k]`` of the
    other share ``overlap_us[k] > 0`` microseconds. Ordered by ``(first, second)``."""

    first: NDArray[np.intp]
    second: NDArray[np.intp]
    overlap_us: Int64Array

    @property
    def total_us(self) -> int:
        """Sum over all pairs (time shared by several pairs counts once per pair)."""
        return int(self.overlap_us.sum())

    def __len__(self) -> int:
        return int(self.first.size)


def _readonly(array: NDArray[Any]) -> NDArray[Any]:
    array.flags.writeable = False
    return array


def _encode_labels(labels: Sequence[str | None],
                   n: int) -> tuple[NDArray[np.int32], tuple[str, ...]]:
    """Label strings as indices into their sorted distinct values (``NO_LABEL``: none)."""
    if len(labels) != n:
        raise ValueError(f"{len(labels)} labels for {n} spans")
    ids = np.full(n, NO_LABEL, dtype=np.int32)
    if n == 0:
        return ids, ()
    array = np.asarray(labels, dtype=object)
    present = np.fromiter((label is not None for label in labels), dtype=bool, count=n)
    if not present.any():
        return ids, ()
    named = array[present]
    if not all(isinstance(label, str) for label in named):
        raise TypeError("labels must be strings or None")
    names, inverse = np.unique(named.astype(str), return_inverse=True)
    ids[present] = inverse.astype(np.int32)
    return ids, tuple(str(name) for name in names)


class Spans:
    """Many spans as columns: ``starts``, ``ends`` (int64 microseconds), ``label_ids``
    (indices into ``label_names``, ``NO_LABEL`` for none) and ``open_at_end`` flags.

    The arrays are read-only; every operation returns a new ``Spans``. Order is kept as
    given, except that set operations return sorted, disjoint spans.

    >>> talk = Spans.from_seconds([0.0, 1.5, 1.0], [1.0, 3.0, 2.0], labels=["a", "a", "b"])
    >>> talk.union().to_tuples()
    [(0, 3000000)]
    >>> talk.union(by_label=True).to_tuples(labels=True)
    [('a', 0, 1000000), ('a', 1500000, 3000000), ('b', 1000000, 2000000)]
    >>> talk.covered_us(), int(talk.durations_us.sum())
    (3000000, 3500000)
    """

    __slots__ = ("starts", "ends", "label_ids", "label_names", "open_at_end")

    starts: Int64Array
    ends: Int64Array
    label_ids: NDArray[np.int32]
    label_names: tuple[str, ...]
    open_at_end: NDArray[np.bool_]

    def __init__(self, starts: ArrayLike, ends: ArrayLike,
                 labels: Sequence[str | None] | None = None,
                 open_at_end: ArrayLike | None = None) -> None:
        start_array = np.array(starts, dtype=np.int64, ndmin=1)
        end_array = np.array(ends, dtype=np.int64, ndmin=1)
        for name, given, array in (("starts", starts, start_array), ("ends", ends, end_array)):
            kind = np.asarray(given).dtype.kind
            if array.ndim != 1 or (array.size and kind not in "iu"):
                raise TypeError(f"{name} must be a 1-D sequence of integer microseconds "
                                "(use Spans.from_seconds for seconds)")
        if start_array.size != end_array.size:
            raise ValueError(f"{start_array.size} starts but {end_array.size} ends")
        bad = np.flatnonzero(end_array < start_array)
        if bad.size:
            k = int(bad[0])
            raise ValueError(f"span {k} ends before it starts: "
                             f"[{int(start_array[k])}, {int(end_array[k])}) us")
        n = start_array.size
        ids, names = _encode_labels(labels, n) if labels is not None else (
            np.full(n, NO_LABEL, dtype=np.int32), ())
        flags = (np.zeros(n, dtype=bool) if open_at_end is None
                 else np.array(open_at_end, dtype=bool, ndmin=1))
        if flags.shape != (n,):
            raise ValueError(f"{flags.size} open_at_end flags for {n} spans")
        self._set(start_array, end_array, ids, names, flags)

    def _set(self, starts: Int64Array, ends: Int64Array, label_ids: NDArray[np.int32],
             label_names: tuple[str, ...], open_at_end: NDArray[np.bool_]) -> None:
        self.starts = _readonly(starts)
        self.ends = _readonly(ends)
        self.label_ids = _readonly(label_ids)
        self.label_names = label_names
        self.open_at_end = _readonly(open_at_end)

    @classmethod
    def _trusted(cls, starts: Int64Array, ends: Int64Array,
                 label_ids: NDArray[np.int32] | None = None, label_names: tuple[str, ...] = (),
                 open_at_end: NDArray[np.bool_] | None = None) -> Spans:
        """A ``Spans`` over arrays this module computed (valid by construction, not copied)."""
        n = starts.size
        out = cls.__new__(cls)
        out._set(starts.astype(np.int64, copy=False), ends.astype(np.int64, copy=False),
                 np.full(n, NO_LABEL, dtype=np.int32) if label_ids is None else label_ids,
                 label_names,
                 np.zeros(n, dtype=bool) if open_at_end is None else open_at_end)
        return out

    @classmethod
    def empty(cls) -> Spans:
        """No spans."""
        return cls._trusted(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))

    @classmethod
    def from_seconds(cls, starts_s: ArrayLike, ends_s: ArrayLike,
                     labels: Sequence[str | None] | None = None,
                     open_at_end: ArrayLike | None = None) -> Spans:
        """Spans from float seconds, rounded to the microsecond as :meth:`Span.from_seconds`."""
        return cls(to_us_array(starts_s).reshape(-1), to_us_array(ends_s).reshape(-1), labels,
                   open_at_end)

    @classmethod
    def from_pairs(cls, pairs: ArrayLike) -> Spans:
        """Unlabelled spans from an (n, 2) array of ``[start_us, end_us)`` rows, the
        array form that :meth:`pairs` gives back.

        >>> Spans.from_pairs([[0, 5], [7, 9]]).union().pairs().tolist()
        [[0, 5], [7, 9]]
        """
        rows = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        return cls(rows[:, 0], rows[:, 1])

    @classmethod
    def from_spans(cls, spans: Iterable[Span]) -> Spans:
        """Columns of the given spans, in the given order."""
        items = list(spans)
        return cls(np.fromiter((s.start_us for s in items), dtype=np.int64, count=len(items)),
                   np.fromiter((s.end_us for s in items), dtype=np.int64, count=len(items)),
                   [s.label for s in items],
                   np.fromiter((s.open_at_end for s in items), dtype=bool, count=len(items)))

    # --- reading --------------------------------------------------------------------------

    def __len__(self) -> int:
        return int(self.starts.size)

    def __getitem__(self, index: int) -> Span:
        label_id = int(self.label_ids[index])
        return Span(int(self.starts[index]), int(self.ends[index]),
                    None if label_id == NO_LABEL else self.label_names[label_id],
                    bool(self.open_at_end[index]))

    def __iter__(self) -> Iterator[Span]:
        for index in range(len(self)):
            yield self[index]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Spans):
            return NotImplemented
        return (np.array_equal(self.starts, other.starts)
                and np.array_equal(self.ends, other.ends)
                and np.array_equal(self.open_at_end, other.open_at_end)
                and self.labels == other.labels)

    __hash__ = None  # type: ignore[assignment]  # mutable-looking arrays: not hashable

    def __repr__(self) -> str:
        shown = ", ".join(f"[{s}, {e})" for s, e in self.to_tuples()[:3])
        more = f", ... ({len(self)} spans)" if len(self) > 3 else ""
        return f"Spans({shown}{more})"

    @property
    def labels(self) -> tuple[str | None, ...]:
        """The label of each span (``None`` for none)."""
        names = self.label_names
        return tuple(None if i == NO_LABEL else names[i] for i in self.label_ids.tolist())

    @property
    def durations_us(self) -> Int64Array:
        """Length of each span in microseconds."""
        durations: Int64Array = self.ends - self.starts
        return durations

    def pairs(self) -> Int64Array:
        """The spans as an (n, 2) int64 array of ``[start_us, end_us)`` rows (labels and
        flags left out): the array form of scoring code that keeps sets as plain arrays."""
        rows: Int64Array = np.stack([self.starts, self.ends], axis=1)
        return rows

    def to_tuples(self, labels: bool = False) -> list[Any]:
        """``(start_us, end_us)`` per span, or ``(label, start_us, end_us)``."""
        pairs = zip(self.starts.tolist(), self.ends.tolist(), strict=True)
        if not labels:
            return list(pairs)
        return [(label, s, e) for label, (s, e) in zip(self.labels, pairs, strict=True)]

    def _take(self, index: NDArray[np.intp] | NDArray[np.bool_]) -> Spans:
        return Spans._trusted(self.starts[index], self.ends[index], self.label_ids[index],
                              self.label_names, self.open_at_end[index])

    def sorted(self) -> Spans:
        """By start, then end, then label (a stable, deterministic order)."""
        return self._take(np.lexsort((self.label_ids, self.ends, self.starts)))

    def select(self, label: str | None) -> Spans:
        """The spans carrying ``label`` (``None``: the unlabelled ones), in order."""
        if label is None:
            return self._take(self.label_ids == NO_LABEL)
        if label not in self.label_names:
            return self._take(np.zeros(len(self), dtype=bool))
        return self._take(self.label_ids == self.label_names.index(label))

    def by_label(self) -> dict[str | None, Spans]:
        """One ``Spans`` per label present, keyed by label in sorted order (``None`` first)."""
        present = np.unique(self.label_ids).tolist()
        return {None if i == NO_LABEL else self.label_names[i]:
                self._take(self.label_ids == i) for i in present}

    def covers(self, times_us: ArrayLike) -> NDArray[np.bool_]:
        """For each instant, whether some span holds it (``start <= t < end``).

        >>> Spans([0, 10], [5, 20]).covers([0, 5, 10, 19, 20]).tolist()
        [True, False, True, True, False]
        """
        return self.union()._holds(np.asarray(times_us, dtype=np.int64))

    # --- set operations -------------------------------------------------------------------

    def union(self, *, by_label: bool = False, join_touching: bool = True) -> Spans:
        """The instants covered, as sorted disjoint spans; zero-length spans are dropped.

        ``join_touching=False`` keeps spans that only touch (``end == next start``) apart,
        which keeps a real boundary between two turns (a collar needs it). ``by_label``
        merges only spans of the same label and keeps the label; otherwise the result is
        unlabelled. A merged span is ``open_at_end`` when the span that gives its end is.

        >>> Spans([0, 5, 5, 9], [5, 8, 6, 9]).union().to_tuples()
        [(0, 8)]
        >>> Spans([0, 5], [5, 8]).union(join_touching=False).to_tuples()
        [(0, 5), (5, 8)]
        """
        timed = self if bool((self.ends > self.starts).all()) else self._take(
            self.ends > self.starts)  # the common case, all timed, copies nothing
        n = len(timed)
        if n == 0:
            return Spans.empty()
        label_ids = timed.label_ids if by_label else None
        order = _group_order(timed.starts, label_ids)
        # One running maximum over all groups (label index + 1 by label, else 0): shifting
        # each group past the previous one's times keeps an end from one label from
        # reaching into the next. The shifted columns are the only copies made.
        low = int(timed.starts.min())
        width = int(timed.ends.max()) - low + 1
        groups = 0 if label_ids is None else int(label_ids.max()) + 1
        if (groups + 1) * width > np.iinfo(np.int64).max // 2:
            raise OverflowError("too many labels over too long a time span to merge at once")
        shift = _group_shift(label_ids, width, low)
        starts = timed.starts.copy() if order is None else timed.starts[order]
        starts += shift
        running = timed.ends.copy() if order is None else timed.ends[order]
        running += shift
        np.maximum.accumulate(running, out=running)
        first = np.ones(n, dtype=bool)
        if join_touching:
            np.greater(starts[1:], running[:-1], out=first[1:])
        else:
            np.greater_equal(starts[1:], running[:-1], out=first[1:])
        heads = np.flatnonzero(first)
        del first
        starts -= shift  # back to times, in place
        running -= shift
        del shift
        block_starts = starts[heads]
        del starts
        lasts = np.empty_like(heads)
        np.subtract(heads[1:], 1, out=lasts[:-1])
        lasts[-1] = n - 1
        block_ends = running[lasts]
        del running, lasts
        open_flags = np.zeros(heads.size, dtype=bool)
        opened = timed.open_at_end if order is None else timed.open_at_end[order]
        if opened.any():
            ends = timed.ends if order is None else timed.ends[order]
            block = np.repeat(np.arange(heads.size), np.diff(np.append(heads, n)))
            open_flags = np.logical_or.reduceat(opened & (ends == block_ends[block]), heads)
        ids = (np.full(heads.size, NO_LABEL, dtype=np.int32) if label_ids is None
               else label_ids[heads if order is None else order[heads]])
        return Spans._trusted(block_starts, block_ends, ids,
                              timed.label_names if by_label else (), open_flags)

    def _pieces(self, other: Spans) -> tuple[Int64Array, Int64Array,
                                             NDArray[np.bool_], NDArray[np.bool_]]:
        """Elementary intervals between all boundaries of both sets, and whether each lies
        in this set and in ``other`` (nothing changes inside an elementary interval)."""
        mine, theirs = self.union(), other.union()
        bounds = _sorted_unique(np.concatenate([mine.starts, mine.ends, theirs.starts,
                                                theirs.ends]))
        low, high = bounds[:-1], bounds[1:]
        return low, high, mine._holds(low), theirs._holds(low)

    def _holds(self, times: Int64Array) -> NDArray[np.bool_]:
        """Point membership for sorted disjoint spans (the output of :meth:`union`)."""
        if len(self) == 0:
            return np.zeros(times.size, dtype=bool)
        order = None if _is_sorted(times) else np.argsort(times, kind="stable")
        keys = times if order is None else times[order]  # sorted keys search faster
        index = np.searchsorted(self.starts, keys, side="right") - 1
        inside: NDArray[np.bool_] = (index >= 0) & (keys < self.ends[np.maximum(index, 0)])
        if order is not None:
            inside[order] = inside.copy()
        return inside

    @staticmethod
    def _runs(low: Int64Array, high: Int64Array, keep: NDArray[np.bool_]) -> Spans:
        """Join kept consecutive elementary intervals into sorted disjoint spans."""
        if not keep.any():
            return Spans.empty()
        padded = np.concatenate([[False], keep, [False]])
        begins = np.flatnonzero(padded[1:-1] & ~padded[:-2])
        finishes = np.flatnonzero(padded[1:-1] & ~padded[2:])
        return Spans._trusted(low[begins], high[finishes])

    def intersection(self, other: Spans) -> Spans:
        """Instants covered by both sets, as sorted disjoint unlabelled spans.

        >>> Spans([0, 20], [10, 30]).intersection(Spans([5], [25])).to_tuples()
        [(5, 10), (20, 25)]
        """
        low, high, mine, theirs = self._pieces(other)
        return self._runs(low, high, mine & theirs)

    def difference(self, other: Spans) -> Spans:
        """Instants covered by this set and not by ``other``.

        >>> Spans([0], [30]).difference(Spans([5, 20], [10, 25])).to_tuples()
        [(0, 5), (10, 20), (25, 30)]
        """
        low, high, mine, theirs = self._pieces(other)
        return self._runs(low, high, mine & ~theirs)

    def covered_us(self) -> int:
        """Time covered by at least one span (overlaps count once)."""
        merged = self.union()
        return int((merged.ends - merged.starts).sum())

    def overlap_us(self, other: Spans) -> int:
        """Time covered by both sets (the length of :meth:`intersection`).

        >>> Spans([0, 20], [10, 30]).overlap_us(Spans([5], [25]))   # 5 + 5
        10
        """
        low, high, mine, theirs = self._pieces(other)
        return int((high - low)[mine & theirs].sum())

    def iou(self, other: Spans) -> float | None:
        """Shared time over the time covered by either set; ``None`` when neither covers any.

        >>> Spans([0], [10]).iou(Spans([5], [15]))
        0.3333333333333333
        """
        low, high, mine, theirs = self._pieces(other)
        lengths = high - low
        joint = int(lengths[mine | theirs].sum())
        return None if joint == 0 else int(lengths[mine & theirs].sum()) / joint

    def clipped(self, window: Span) -> Spans:
        """Each span cut to ``window``; spans left empty are dropped, labels and order kept.

        >>> Spans([0, 8, 20], [5, 12, 30]).clipped(Span(4, 10)).to_tuples()
        [(4, 5), (8, 10)]
        """
        starts = np.maximum(self.starts, window.start_us)
        ends = np.minimum(self.ends, window.end_us)
        keep = ends > starts
        return Spans._trusted(starts[keep], ends[keep], self.label_ids[keep], self.label_names,
                              self.open_at_end[keep] & (self.ends[keep] == ends[keep]))

    def coverage(self, window: Span) -> float | None:
        """Share of ``window`` covered by the set; ``None`` for a zero-length window.

        >>> Spans([0, 8], [5, 12]).coverage(Span(0, 10))   # (5 + 2) / 10
        0.7
        """
        if window.duration_us == 0:
            return None
        return self.clipped(window).covered_us() / window.duration_us

    # --- pairs ----------------------------------------------------------------------------

    def pairwise_overlaps(self, other: Spans) -> Overlaps:
        """Every pair (span of this set, span of ``other``) that shares time, with how much.

        A sweep over both sets sorted by start: a pair shares time exactly when the later
        start lies inside the other span, so the partners of each span are one contiguous
        run of the other set's sorted starts, found with ``searchsorted``. Memory grows
        with the number of overlapping pairs, not with ``len(self) * len(other)``.

        >>> pairs = Spans([0, 20], [10, 30]).pairwise_overlaps(Spans([5, 8], [25, 9]))
        >>> pairs.first.tolist(), pairs.second.tolist(), pairs.overlap_us.tolist()
        ([0, 0, 1], [0, 1, 0], [5, 1, 5])
        """
        a_order = np.argsort(self.starts, kind="stable")
        b_order = np.argsort(other.starts, kind="stable")
        a_starts, a_ends = self.starts[a_order], self.ends[a_order]
        b_starts, b_ends = other.starts[b_order], other.ends[b_order]
        # (queries in sorted order: searchsorted is several times faster on sorted keys)
        # other's spans starting inside each of ours: start in [a.start, a.end)
        rows, ks = expand(np.searchsorted(b_starts, a_starts, side="left"),
                           np.searchsorted(b_starts, a_ends, side="left"))
        first_1, second_1 = a_order[rows], b_order[ks]
        # our spans starting strictly inside each of other's: start in (b.start, b.end)
        rows, ks = expand(np.searchsorted(a_starts, b_starts, side="right"),
                           np.searchsorted(a_starts, b_ends, side="left"))
        first = np.concatenate([first_1, a_order[ks]]).astype(np.intp)
        second = np.concatenate([second_1, b_order[rows]]).astype(np.intp)
        shared = (np.minimum(self.ends[first], other.ends[second])
                  - np.maximum(self.starts[first], other.starts[second]))
        keep = shared > 0
        first, second, shared = first[keep], second[keep], shared[keep]
        order = np.lexsort((second, first))
        return Overlaps(first[order], second[order], shared[order].astype(np.int64))


def _group_order(starts: Int64Array, label_ids: NDArray[np.int32] | None
                 ) -> NDArray[np.intp] | None:
    """An order of the spans by label, then start (``None``: they are in it already).

    The order among equal starts of one label does not matter to :meth:`Spans.union`
    (such spans always fall into one block). Spans read from a file usually come sorted
    by start: then a stable sort of the small label codes alone does (numpy sorts 8- and
    16-bit integers by radix, in linear time).
    """
    by_start = None if _is_sorted(starts) else np.argsort(starts, kind="stable")
    if label_ids is None or label_ids.size == 0 or int(label_ids.max()) == int(label_ids.min()):
        return by_start
    small = _small_codes(label_ids)
    if by_start is None:
        return np.argsort(small, kind="stable")
    return by_start[np.argsort(small[by_start], kind="stable")]


def _small_codes(codes: NDArray[np.int32]) -> NDArray[np.integer]:
    """Codes from -1 up in the smallest integer type that holds them."""
    top = int(codes.max())
    return (codes.astype(np.int8) if top < 1 << 7 else codes.astype(np.int16)
            if top < 1 << 15 else codes)


def _group_shift(label_ids: NDArray[np.int32] | None, width: int,
                 low: int) -> Int64Array | int:
    """What :meth:`Spans.union` adds to each span's times (in the merge order) so that the
    groups follow one another: ``group * width - low``, one number when unlabelled."""
    if label_ids is None:
        return -low
    counts = np.bincount(label_ids.astype(np.int64) + 1)
    offsets = np.arange(counts.size, dtype=np.int64) * width - low
    shift: Int64Array = np.repeat(offsets, counts)
    return shift


def _is_sorted(values: Int64Array) -> bool:
    return bool(values.size < 2 or (values[1:] >= values[:-1]).all())


def _sorted_unique(values: Int64Array) -> Int64Array:
    """``np.unique`` for integers by sorting (numpy 2's hash-based unique is many times
    slower on a few million int64 values).

    >>> _sorted_unique(np.array([5, 1, 5, 3, 1])).tolist()
    [1, 3, 5]
    """
    ordered = np.sort(values)
    keep = np.ones(ordered.size, dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    unique: Int64Array = ordered[keep]
    return unique


def expand(lo: NDArray[np.integer], hi: NDArray[np.integer]
           ) -> tuple[NDArray[np.integer], NDArray[np.integer]]:
    """All ``(row, k)`` with ``lo[row] <= k < hi[row]``, as two index arrays, rows in
    order (int32 when every index fits: half the memory for the common sizes).

    >>> rows, ks = expand(np.array([2, 0, 5]), np.array([4, 0, 6]))
    >>> rows.tolist(), ks.tolist()
    ([0, 0, 2], [2, 3, 5])
    """
    counts = np.maximum(hi - lo, 0)
    total = int(counts.sum())
    small = max(total, lo.size, int(hi.max()) if hi.size else 0) < 1 << 31
    index = np.int32 if small else np.intp
    rows: NDArray[np.integer] = np.repeat(np.arange(lo.size, dtype=index), counts)
    ks: NDArray[np.integer] = np.arange(total, dtype=index)
    ks += np.repeat((lo - (np.cumsum(counts) - counts)).astype(index), counts)
    return rows, ks


def pair_iou(first: Spans, second: Spans) -> NDArray[np.float64]:
    """IoU of ``first[k]`` with ``second[k]`` for every k (as :meth:`Span.iou`).

    >>> pair_iou(Spans([0, 0, 3], [10, 10, 3]), Spans([5, 20, 3], [15, 30, 3])).tolist()
    [0.3333333333333333, 0.0, 1.0]
    """
    if len(first) != len(second):
        raise ValueError(f"pair_iou needs equal lengths, got {len(first)} and {len(second)}")
    shared = np.maximum(0, np.minimum(first.ends, second.ends)
                        - np.maximum(first.starts, second.starts))
    joint = first.durations_us + second.durations_us - shared
    same_point = (joint == 0) & (first.starts == second.starts)
    iou: NDArray[np.float64] = np.where(joint == 0, same_point.astype(np.float64),
                                        shared / np.where(joint == 0, 1, joint))
    return iou
