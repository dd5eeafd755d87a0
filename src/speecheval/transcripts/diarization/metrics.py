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

import numpy as np
from numpy.typing import NDArray

from ...core.assignment import linear_sum_assignment
from .partition import Activity, Partition
from .result import DerComponents, JerComponents

Pairs = tuple[NDArray[np.intp], NDArray[np.intp]]


def cooccurrence(part: Partition, region: NDArray[np.bool_]) -> NDArray[np.int64]:
    """(reference, system) matrix of time (µs) both speakers are active inside ``region``.

    Summed over the overlapping pairs of turns (:meth:`Partition.overlaps`), exactly.
    """
    return part.cooccurrence(np.where(region, part.durations, 0))


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


def der_components(part: Partition, region: NDArray[np.bool_], pairs: Pairs) -> DerComponents:
    """md-eval's speaker-time components over the intervals where ``region`` is true."""
    weights = np.where(region, part.durations, 0)
    n_ref, n_hyp = part.n_ref, part.n_hyp
    ref_idx, hyp_idx = pairs
    # time a reference speaker and its mapped system speaker talk together (correct)
    correct_us = int(cooccurrence(part, region)[ref_idx, hyp_idx].sum()) if ref_idx.size else 0
    return DerComponents(
        scored_us=int(weights @ n_ref),
        missed_us=int(weights @ np.maximum(n_ref - n_hyp, 0)),
        false_alarm_us=int(weights @ np.maximum(n_hyp - n_ref, 0)),
        confusion_us=int(weights @ np.minimum(n_ref, n_hyp)) - correct_us,
        region_us=int(weights.sum()),
    )


def jer_components(part: Partition, region: NDArray[np.bool_]) -> JerComponents:
    """dscore's JER summed over the reference speakers with speech inside ``region``.

    Speakers without speech inside the region take no part (dscore's ``min_ref_dur``
    set just above zero), so a speaker heard only outside the UEM cannot add an error.
    """
    weights = np.where(region, part.durations, 0)
    ref_time, hyp_time = part.ref.time(weights), part.hyp.time(weights)
    ref_keep, hyp_keep = ref_time > 0, hyp_time > 0
    n_ref = int(np.count_nonzero(ref_keep))
    if n_ref == 0:
        return JerComponents(0.0, 0)
    if not hyp_keep.any():
        return JerComponents(float(n_ref), n_ref)
    intersect = cooccurrence(part, region)[np.ix_(ref_keep, hyp_keep)]
    union = ref_time[ref_keep][:, None] + hyp_time[hyp_keep][None, :] - intersect
    errors = 1.0 - intersect / union
    rows, cols = linear_sum_assignment(errors)
    per_speaker = np.ones(n_ref)
    per_speaker[rows] = errors[rows, cols]
    return JerComponents(float(per_speaker.sum()), n_ref)


def speakers_present(active: Activity, weights: NDArray[np.int64]) -> int:
    """Number of speakers with positive speech time under ``weights``."""
    return int(np.count_nonzero(active.time(weights) > 0))
