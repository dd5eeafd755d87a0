"""``Backchannel.score_many``: the batch entry every task has. Backchannel samples have no
unified metric, so a batch of none scores to an empty list and a batch with a sample
refuses exactly as ``score`` does (the scorer never sends one; this pins what it would get).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from speecheval.core.timeline import Spans
from speecheval.fdb.v10.scoring.tasks import TASKS


def test_an_empty_batch_scores_to_an_empty_list() -> None:
    scores = TASKS["backchannel"].score_many([], {})
    assert list(scores) == []


def test_a_batch_with_a_sample_is_refused_like_score() -> None:
    # Only ``entry.sample_id`` is read before the task's own ``score`` refuses the sample;
    # the segments of the sample are looked up by that id (here present, then absent).
    sample = SimpleNamespace(entry=SimpleNamespace(sample_id="bc-1"))
    for segments in ({"bc-1": Spans.empty()}, {}):
        with pytest.raises(NotImplementedError) as refused:
            TASKS["backchannel"].score_many([sample], segments)  # type: ignore[list-item]
        assert str(refused.value) == "backchannel samples are not scored"
