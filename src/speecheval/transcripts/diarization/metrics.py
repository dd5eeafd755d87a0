"""DER, JER and speaker count from a :class:`Partition`: weighted sums, no loops over time.

Definitions (md-eval-22 for DER, dscore for JER), per elementary interval of duration
``d`` inside the scoring region, with ``R`` reference and ``H`` system speakers active and
``C`` of the reference speakers whose mapped system speaker is also active:

* scored speaker time ``d * R``; missed ``d * max(R - H, 0)``; false alarm
  ``d * max(H - R, 0)``; confusion ``d * (min(R, H) - C)``.
* The mapping is one-to-one between reference and system speakers and maximises their
  total co-occurrence (:func:`speecheval.core.assignment.linear_sum_assignment`) over the
  *mapping region*: md-eval maps over the whole UEM before collars and overlap
  exclusion (``"uem"``), pyannote.metrics over the UEM minus collars
  (``"uem_minus_collar"``).
* JER (dscore): for each reference speaker, ``1 - |R ∩ H| / |R ∪ H|`` with the system
  speaker paired to it by a Hungarian assignment that minimises the sum of these errors,
  and 1 for an unpaired reference speaker; unpaired system speakers are not penalised.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...core.assignment import linear_sum_assignment
from .partition import Partition, Region
from .result import DerComponents, JerComponents

Pairs = tuple[NDArray[np.intp], NDArray[np.intp]]
_CHUNK = 1 << 20  # intervals at a time in the weighted sum


@dataclass(frozen=True, eq=False)
class RegionTotals:
    """Everything DER, JER and the speaker count need from one scoring region (µs).

    ``ref_time``/``hyp_time``: each speaker's time inside the region; ``cooccurrence``:
    the (reference, system) matrix of time both speakers talk; ``both_us``: the sum
    over the region of ``min(R, H)``, the speaker time that is neither missed nor false
    alarm; ``region_us``: the region's length.
    """

    ref_time: NDArray[np.int64]
    hyp_time: NDArray[np.int64]
    cooccurrence: NDArray[np.int64]
    both_us: int
    region_us: int

    def __add__(self, other: RegionTotals) -> RegionTotals:
        """The totals of this region and another one that shares no instant with it
        (every total is a sum over instants).

        >>> a = RegionTotals(np.array([5]), np.array([4]), np.array([[3]]), 4, 10)
        >>> b = RegionTotals(np.array([2]), np.array([1]), np.array([[1]]), 1, 6)
        >>> s = a + b
        >>> s.ref_time.tolist(), s.hyp_time.tolist(), s.cooccurrence.tolist()
        ([7], [5], [[4]])
        >>> s.both_us, s.region_us
        (5, 16)
        """
        return RegionTotals(self.ref_time + other.ref_time, self.hyp_time + other.hyp_time,
                            self.cooccurrence + other.cooccurrence,
                            self.both_us + other.both_us, self.region_us + other.region_us)

    def __sub__(self, other: RegionTotals) -> RegionTotals:
        """The totals of this region minus a part of it (every total is a sum over
        instants, so the part's totals subtract).

        >>> a = RegionTotals(np.array([5]), np.array([4]), np.array([[3]]), 4, 10)
        >>> b = RegionTotals(np.array([2]), np.array([1]), np.array([[1]]), 1, 6)
        >>> d = a - b
        >>> d.ref_time.tolist(), d.hyp_time.tolist(), d.cooccurrence.tolist()
        ([3], [3], [[2]])
        >>> d.both_us, d.region_us
        (3, 4)
        """
        return RegionTotals(self.ref_time - other.ref_time, self.hyp_time - other.hyp_time,
                            self.cooccurrence - other.cooccurrence,
                            self.both_us - other.both_us, self.region_us - other.region_us)


def region_totals(part: Partition, region: Region) -> RegionTotals:
    """The :class:`RegionTotals` of ``region``: its prefix sums read at the turns and at
    the overlapping pairs of turns, and one weighted sum over the intervals.

    A speaker's merged turns are disjoint, so ``ref_time.sum()`` is the weighted sum of
    the number of active reference speakers (md-eval's scored speaker time).
    """
    both = part.both()
    both_us = sum(int(np.dot(region.weights(slice(at, at + _CHUNK)),
                             both[at:at + _CHUNK].astype(np.int64)))
                  for at in range(0, both.size, _CHUNK))
    return RegionTotals(ref_time=part.ref.time(region.prefix),
                        hyp_time=part.hyp.time(region.prefix),
                        cooccurrence=part.cooccurrence(region.prefix), both_us=both_us,
                        region_us=region.total_us)


def optimal_mapping(overlap: NDArray[np.int64]) -> Pairs:
    """One-to-one pairs maximising total overlap; pairs that never co-occur are dropped.

    The total counts, not the largest single overlap (a greedy choice of 0-0 would give
    5 + 0; the optimum is 4 + 4):

    >>> ref, hyp = optimal_mapping(np.array([[5, 4], [4, 0]]))
    >>> ref.tolist(), hyp.tolist()
    ([0, 1], [1, 0])
    """
    if overlap.size == 0:
        empty = np.empty(0, dtype=np.intp)
        return empty, empty
    ref, hyp = linear_sum_assignment(overlap, maximize=True)
    keep = overlap[ref, hyp] > 0
    return ref[keep], hyp[keep]


def der_components(totals: RegionTotals, pairs: Pairs) -> DerComponents:
    """md-eval's speaker-time components over one region, per elementary interval
    ``d·R``, ``d·max(R − H, 0)``, ``d·max(H − R, 0)`` and ``d·(min(R, H) − C)``, summed:
    ``max(R − H, 0) = R − min(R, H)``, so each is a difference of totals.

    >>> t = RegionTotals(np.array([10, 4]), np.array([6, 9]), np.array([[5, 1], [0, 3]]),
    ...                  both_us=12, region_us=30)
    >>> der_components(t, (np.array([0, 1]), np.array([0, 1])))  # correct 5 + 3
    ... # doctest: +NORMALIZE_WHITESPACE
    DerComponents(scored_us=14, missed_us=2, false_alarm_us=3, confusion_us=4,
                  region_us=30)
    """
    ref_idx, hyp_idx = pairs
    # time a reference speaker and its mapped system speaker talk together (correct)
    correct_us = int(totals.cooccurrence[ref_idx, hyp_idx].sum()) if ref_idx.size else 0
    scored_us = int(totals.ref_time.sum())
    return DerComponents(
        scored_us=scored_us,
        missed_us=scored_us - totals.both_us,
        false_alarm_us=int(totals.hyp_time.sum()) - totals.both_us,
        confusion_us=totals.both_us - correct_us,
        region_us=totals.region_us,
    )


def jer_components(totals: RegionTotals) -> JerComponents:
    """dscore's JER summed over the reference speakers with speech inside the region.

    Speakers without speech inside the region take no part (dscore's ``min_ref_dur``
    set just above zero), so a speaker heard only outside the UEM cannot add an error.
    """
    ref_time, hyp_time = totals.ref_time, totals.hyp_time
    ref_keep, hyp_keep = ref_time > 0, hyp_time > 0
    n_ref = int(np.count_nonzero(ref_keep))
    if n_ref == 0:
        return JerComponents(0.0, 0)
    if not hyp_keep.any():
        return JerComponents(float(n_ref), n_ref)
    intersect = totals.cooccurrence[np.ix_(ref_keep, hyp_keep)]
    union = ref_time[ref_keep][:, None] + hyp_time[hyp_keep][None, :] - intersect
    errors = 1.0 - intersect / union
    rows, cols = linear_sum_assignment(errors)
    per_speaker = np.ones(n_ref)
    per_speaker[rows] = errors[rows, cols]
    return JerComponents(float(per_speaker.sum()), n_ref)


def speakers_present(time: NDArray[np.int64]) -> int:
    """Number of speakers with positive speech time.

    >>> speakers_present(np.array([0, 3, 0, 1]))
    2
    """
    return int(np.count_nonzero(time > 0))
