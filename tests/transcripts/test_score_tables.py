"""The scenario tables of ``transcripts score`` are typed until a writer asks for a file.

``score_manifest`` gives :class:`Tables` whose scenario tables hold a :class:`Maturity`,
their evidence and one typed entry per measure; the writer (``score/files.py``) is what
turns them into the dicts of ``scenarios.json``. These tests read the example manifest's
tables as objects and check that the file holds what those objects say.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from speecheval.core.results import Reported
from speecheval.transcripts.aggregate import RateSummary
from speecheval.transcripts.maturity import Maturity
from speecheval.transcripts.score.manifest import load_manifest
from speecheval.transcripts.score.run import score_manifest, write_run
from speecheval.transcripts.score.table_entries import (
    DiarizationEntry,
    Graded,
    SpeakerRate,
    TimestampsEntry,
)
from speecheval.transcripts.score.tables import Tables

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "transcripts" / "manifest.yaml"


@pytest.fixture(scope="module")
def tables() -> Tables:
    return score_manifest(load_manifest(EXAMPLE))[1]


def test_every_scenario_table_is_typed(tables: Tables) -> None:
    assert list(tables.scenarios) == ["meeting-en", "podcast-zh-en"]
    for table in tables.scenarios.values():
        assert isinstance(table.maturity, Maturity)
        assert isinstance(table.entry("cp", SpeakerRate), SpeakerRate)
        assert isinstance(table.entry("diarization", DiarizationEntry), DiarizationEntry)
        assert isinstance(table.entry("timestamps", TimestampsEntry), TimestampsEntry)
        text = table.text
        assert isinstance(text, Graded) and isinstance(text.value, RateSummary)
        # every entry has a file shape (Reported), or is None when nothing is reported
        assert all(entry is None or isinstance(entry, Reported)
                   for entry in table.measures.values())


def test_an_entry_read_as_another_type_names_the_scenario_and_measure(tables: Tables) -> None:
    with pytest.raises(TypeError, match="^scenario 'meeting-en': cp is a SpeakerRate, not a "
                                        "DiarizationEntry$"):
        tables.scenarios["meeting-en"].entry("cp", DiarizationEntry)
    assert tables.scenarios["meeting-en"].entry("orc", SpeakerRate) is None  # not selected


def test_the_file_holds_what_the_typed_tables_say(tables: Tables, tmp_path: Path) -> None:
    write_run(EXAMPLE, tmp_path / "run", ["test"])
    written = json.loads((tmp_path / "run" / "scenarios.json").read_text(encoding="utf-8"))
    assert written["run_maturity"]["level"] == tables.run_maturity.level
    for name, table in tables.scenarios.items():
        entry = written["scenarios"][name]
        assert entry["maturity"]["level"] == table.maturity.level
        assert entry["samples"] == table.samples
        assert entry["rate_name"] == table.rate_name
        cp = table.entry("cp", SpeakerRate)
        assert cp is not None
        assert entry["cp"]["scored_runs"] == cp.scored_runs
        text = table.text
        assert text is not None
        assert entry["text"]["macro"] == pytest.approx(text.value.macro)
        assert entry["text"]["evidence"]["samples"] == text.samples
