"""The backchannel task has no unified metric: loading or scoring one of its samples is a
programming error that says so, never a silent score."""

from __future__ import annotations

import pytest

from speecheval.core.timeline import Spans
from speecheval.fdb.v10.scoring.tasks import TASKS


def test_backchannel_samples_are_refused_by_load_and_score() -> None:
    task = TASKS["backchannel"]
    assert (task.scored, task.needs_speech) == (False, False)
    with pytest.raises(NotImplementedError) as loading:
        task.load(None)  # type: ignore[arg-type]
    with pytest.raises(NotImplementedError) as scoring:
        task.score(None, Spans.empty())  # type: ignore[arg-type]
    assert str(loading.value) == str(scoring.value) == "backchannel samples are not scored"


def test_only_a_subset_with_a_note_records_one() -> None:
    # The backchannel subset says why it has no metrics; the other tasks' records carry
    # no "note" key at all (no null placeholder). Empty selections keep the counts trivial.
    backchannel = TASKS["backchannel"].subset([], 0, []).report_dict()
    assert backchannel["metrics"] is None
    assert backchannel["note"] == ("no unified metric; the official backchannel frequency "
                                   "and JSD are the reference")
    assert "note" not in TASKS["pause_handling"].subset([], 0, []).report_dict()
