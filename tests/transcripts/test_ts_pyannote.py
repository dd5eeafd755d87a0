"""Turn boundary matching against pyannote.metrics' segmentation precision and recall.

The definitions differ in two ways: pyannote counts only inner boundaries (segment ends
but the last) and matches greedily closest-first, while ours counts every turn start and
end and finds a maximum one-to-one matching. On contiguous turns sharing their outer
boundaries, with reference boundaries far apart (more than twice the tolerance), each
system boundary is near at most one reference boundary and each reference boundary near at
most one system boundary, so both count the same inner matches; ours adds the two outer
boundaries on each side.
"""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.timestamps.boundaries import boundary_counts
from speecheval.transcripts.timestamps.stream import timed_segments

core = pytest.importorskip("pyannote.core")
segmentation = pytest.importorskip("pyannote.metrics.segmentation")


def turns(points: list[float]) -> list[Segment]:
    """Contiguous turns between consecutive points, speakers alternating."""
    return [Segment("r", "AB"[k % 2], a, b, "x")
            for k, (a, b) in enumerate(zip(points[:-1], points[1:], strict=True))]


def timeline(points: list[float]) -> object:
    return core.Timeline([core.Segment(a, b) for a, b in zip(points[:-1], points[1:],
                                                              strict=True)])


@pytest.mark.parametrize("seed", range(25))
def test_boundary_matches_agree_with_pyannote(seed: int) -> None:
    rng = np.random.default_rng(seed)
    inner = np.cumsum(rng.uniform(3.0, 6.0, int(rng.integers(2, 12))))
    end = float(inner[-1] + 3.0)
    ref_points = [0.0, *map(float, inner), end]
    hyp_inner = [float(p + rng.uniform(-0.45, 0.45)) for p in inner if rng.random() > 0.2]
    for p in inner:  # extra boundaries, at least 1.2 s from every reference boundary
        if rng.random() < 0.3:
            hyp_inner.append(float(p + 1.5))
    hyp_points = [0.0, *sorted(hyp_inner), end]
    ours = boundary_counts(timed_segments(turns(ref_points), "word"),
                           timed_segments(turns(hyp_points), "word"))["0.5"]
    precision = segmentation.SegmentationPrecision(tolerance=0.5)
    recall = segmentation.SegmentationRecall(tolerance=0.5)
    p_detail = precision.compute_components(timeline(ref_points), timeline(hyp_points))
    r_detail = recall.compute_components(timeline(ref_points), timeline(hyp_points))
    assert ours.matched - 2 == p_detail["number of matches"] == r_detail["number of matches"]
    assert ours.hypothesis - 2 == p_detail["number of boundaries"]
    assert ours.reference - 2 == r_detail["number of boundaries"]
