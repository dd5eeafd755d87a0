"""A transcripts measure is one class: defining it adds its key to ``samples.jsonl``,
``status`` and the scenario tables of ``transcripts score``."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from speecheval.cli import main
from speecheval.transcripts.score import measure
from speecheval.transcripts.score.measure import (
    Measure,
    Outcome,
    RunInputs,
    RunScore,
    ScenarioView,
    measures,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "transcripts" / "manifest.yaml"


def test_the_registry_holds_every_measure_by_name() -> None:
    assert [m.name for m in measures()] == [
        "chunk_regions", "cp", "diarization", "hallucination", "moss_parity", "numbers",
        "orc", "punctuation", "tcp", "terms", "text", "timestamps", "wder"]


@pytest.fixture()
def clean_registry() -> Iterator[None]:
    measures()  # discover the built-in ones first
    before = dict(measure._REGISTRY)
    yield
    measure._REGISTRY.clear()
    measure._REGISTRY.update(before)


@pytest.mark.usefixtures("clean_registry")
def test_a_new_measure_reaches_rows_status_and_tables(tmp_path: Path) -> None:
    class WordCount(Measure[int]):
        """Words in the system's output; refused for failed runs (written for this test)."""

        name = "word_count"

        def score(self, inputs: RunInputs) -> Outcome[int]:
            if inputs.failed:
                return Outcome(status={"word_count": "failed run"})
            return Outcome(len(inputs.alignment.hypothesis_tokens))

        def row(self, result: int, run: RunScore) -> Any:
            return {"words": result}

        def table(self, runs: Sequence[RunScore], view: ScenarioView) -> Any:
            return sum(run.get(WordCount) or 0 for run in runs)

    out = tmp_path / "run"
    assert main(["transcripts", "score", "--manifest", str(EXAMPLE), "--out", str(out)]) == 0
    rows = {(r["sample_id"], r["repeat"]): r for r in map(
        json.loads, (out / "samples.jsonl").read_text(encoding="utf-8").splitlines())}
    # en-review repeat 2 failed; repeat 1 has 10 reference words of which 'approval by' ->
    # 'a proval' are 2 substitutions and nothing is inserted or deleted: 10 output words
    assert rows[("en-review", 2)]["word_count"] is None
    assert rows[("en-review", 2)]["status"]["word_count"] == "failed run"
    assert rows[("en-review", 1)]["word_count"] == {"words": 10}
    scenarios = json.loads((out / "scenarios.json").read_text(encoding="utf-8"))["scenarios"]
    per_run = {k: v["word_count"]["words"] for k, v in rows.items()
               if v["word_count"] is not None}
    assert scenarios["meeting-en"]["word_count"] == sum(
        n for (sample, _), n in per_run.items() if rows[(sample, 1)]["scenario"] == "meeting-en")


@pytest.mark.usefixtures("clean_registry")
def test_a_measure_name_is_taken_once() -> None:
    with pytest.raises(ValueError, match="measure name 'text' is taken"):
        class Again(Measure[int]):
            name = "text"

            def score(self, inputs: RunInputs) -> Outcome[int]:
                return Outcome()
