"""Cases of the DER interval sets that no other test reached, found by mutation testing
(docs/testing.md): each assertion fails on a one-token change of
``transcripts/diarization/interval_sets.py`` that the rest of the suite let through."""

from __future__ import annotations

import numpy as np

from speecheval.transcripts.diarization.interval_sets import intersection, intervals


def test_intersection_of_two_empty_sets_is_an_empty_int64_set() -> None:
    # no interval on either side: no chunk of the larger set to walk, and the result is
    # still an (0, 2) int64 set (not a concatenation of nothing, not floats)
    empty = intervals([])
    result = intersection(empty, empty)
    assert result.shape == (0, 2)
    assert result.dtype == np.int64
