"""What ``interval_sets`` still computes its own way gives the sets of the one span
algebra, :class:`speecheval.core.timeline.Spans`, on random sets (ADR 0014)."""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.core.timeline import Span, Spans
from speecheval.transcripts.diarization.interval_sets import (
    covered_before,
    difference,
    intersection,
    normalized,
    outside_around,
)


def _random(rng: np.random.Generator, n: int) -> Spans:
    starts = rng.integers(0, 1_000, n)
    return Spans(starts, starts + rng.integers(0, 60, n))


@pytest.mark.parametrize("seed", range(40))
def test_the_specialised_operations_give_the_spans_sets(seed: int) -> None:
    rng = np.random.default_rng(seed)
    first, second = _random(rng, int(rng.integers(0, 40))), _random(rng, int(rng.integers(0, 40)))
    a, b = normalized(first.pairs()), normalized(second.pairs())
    assert a.tolist() == first.union().pairs().tolist()
    assert intersection(a, b).tolist() == first.intersection(second).pairs().tolist()
    assert difference(first.pairs(), second.pairs()).tolist() == \
        first.difference(second).pairs().tolist()
    # the complement of the collars, met with a region: the region minus the zones
    points, radius = rng.integers(0, 1_000, int(rng.integers(1, 30))), int(rng.integers(1, 40))
    region = Spans([int(rng.integers(0, 300))], [int(rng.integers(600, 1_100))])
    zones = Spans(points - radius, points + radius)
    assert intersection(region.pairs(), outside_around(points.copy(), radius)).tolist() == \
        region.difference(zones).pairs().tolist()
    # time of the set before each instant: the set clipped to everything before it
    times = rng.integers(-10, 1_200, 12)
    assert covered_before(a, times).tolist() == \
        [first.clipped(Span(-10, max(int(t), -10))).covered_us() for t in times]


def test_the_check_above_can_fail() -> None:
    # a set that is not normalised gives other rows than its union
    given = Spans([0, 2], [3, 5])
    assert given.pairs().tolist() != given.union().pairs().tolist()
