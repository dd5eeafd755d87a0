"""The record of a subset of ``unified.json`` names every field (here the backchannel
subset, which has no metric and says why)."""

from __future__ import annotations

from speecheval.fdb.v10.scoring.tasks import TASKS


def test_the_subset_record_by_name() -> None:
    assert TASKS["backchannel"].subset([], 0, []).report_dict() == {
        "task": "backchannel",
        "counts": {"declared": 0, "selected": 0, "eligible": 0, "ineligible": 0,
                   "ineligible_reasons": {}},
        "coverage": None, "metrics": None,
        "note": ("no unified metric; the official backchannel frequency and JSD are the "
                 "reference")}
