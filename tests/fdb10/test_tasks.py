"""One object per task, and typed results that read back as the files they wrote."""

from __future__ import annotations

import json
from pathlib import Path

from speecheval.core.canonical_json import dumps
from speecheval.core.results import from_dict, to_dict
from speecheval.fdb.common.tree import ANNOTATION_FILES, SUBSET_TASKS, USER_INTERRUPTION
from speecheval.fdb.v10.report.unified_files import UNIFIED_JSON, UNIFIED_SAMPLES, write_unified
from speecheval.fdb.v10.scoring.tasks import TASKS
from speecheval.fdb.v10.scoring.unified import SampleRow, UnifiedSummary, score_tree

from .treekit import Spec, interrupt, pauses, turn, write_tree

P, TT, UI = "synthetic_pause_handling", "candor_turn_taking", "synthetic_user_interruption"


def test_every_subset_task_has_one_task_object() -> None:
    assert set(TASKS) == set(SUBSET_TASKS.values()) == set(ANNOTATION_FILES)
    assert all(name == task.name for name, task in TASKS.items())
    # only the interruption outcome depends on speech segments (the VAD)
    assert [name for name, task in TASKS.items() if task.needs_speech] == [USER_INTERRUPTION]
    assert [name for name, task in TASKS.items() if not task.scored] == ["backchannel"]


def test_results_read_back_into_the_records_written(tmp_path: Path, hand_segments) -> None:
    hand_segments({f"{UI}/u": [(0.0, 5.5), (8.0, 9.0)]})
    tree = write_tree(tmp_path / "tree", [
        Spec(P, "p", 6.0, [("a", 2.5, 2.7)], pauses((2, 3), (4, 5))),
        Spec(TT, "t", 6.0, [("a", 2.5, 2.7)], turn(2.0)),
        Spec(TT, "t2", 6.0, [], turn(2.0), eligible=False, reasons=["pacing"]),
        Spec(UI, "u", 10.0, [("a", 8.0, 8.2)], interrupt(5.0, 7.0)),
    ])
    result = score_tree(tree)
    write_unified(result, tmp_path / "out")
    summary = from_dict(json.loads(json.dumps(to_dict(result.summary))))
    assert isinstance(summary, UnifiedSummary) and summary == result.summary
    assert dumps(summary.report_dict()) == (tmp_path / "out" / UNIFIED_JSON).read_text()
    rows = [SampleRow.from_dict(json.loads(json.dumps(row.to_dict()))) for row in result.rows]
    assert tuple(rows) == result.rows
    written = (tmp_path / "out" / UNIFIED_SAMPLES).read_text().splitlines()
    assert [json.loads(line) for line in written] == [row.report_dict() for row in rows]
    # the interruption row keeps the segments it was decided from, as Spans in microseconds
    (interrupted,) = [row for row in rows if row.subset == UI]
    assert [(s.start_us, s.end_us) for s in interrupted.score.segments] == [  # type: ignore[union-attr]
        (0, 5_500_000), (8_000_000, 9_000_000)]
