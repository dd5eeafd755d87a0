"""The bundled mini tree, scored with real Silero: every sample gets its designed outcome.

The builder records what each sample was designed to produce (``BuiltSample.intended``),
from the word placements alone; here the scorer, with Silero on the rendered audio, must
agree with every designed flag, outcome and latency.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.fdb.v10.builder.spec import BuiltSample
from speecheval.fdb.v10.builder.trees import build_mini_tree


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory
           ) -> tuple[list[BuiltSample], dict[str, dict], dict]:
    root = tmp_path_factory.mktemp("mini")
    built = build_mini_tree(root / "tree")
    assert main(["fdb10", "unified-score", "--tree", str(root / "tree"),
                 "--out", str(root / "out"), "--jobs", "1"]) == 0
    rows = {json.loads(line)["sample_id"]: json.loads(line)
            for line in (root / "out" / "unified-samples.jsonl").read_text().splitlines()}
    summary = json.loads((root / "out" / "unified.json").read_text())
    return built, rows, summary


def test_every_designed_outcome(scored: tuple[list[BuiltSample], dict[str, dict], dict]
                                ) -> None:
    built, rows, _ = scored
    checked = 0
    for sample in built:
        if sample.task == "backchannel":
            assert sample.sample_id not in rows        # icc_backchannel has no rows
            continue
        row = rows[sample.sample_id]
        assert row["eligible"] == sample.eligible
        if not sample.eligible:
            assert row["reasons"] == list(sample.reasons)
            continue
        for key, want in sample.intended.items():
            if key == "case":
                continue
            got = row[key] > 0 if key == "restarts" else row[key]
            if isinstance(want, float):
                assert got == pytest.approx(want, abs=1e-6), (sample.sample_id, key)
            else:
                assert got == want, (sample.sample_id, sample.intended["case"], key)
            checked += 1
    assert checked >= 200     # the loop really compared the designed values


def test_subset_counts_follow_from_the_design(
        scored: tuple[list[BuiltSample], dict[str, dict], dict]) -> None:
    built, _, summary = scored
    for subset, record in summary["subsets"].items():
        mine = [s for s in built if s.subset == subset]
        eligible = [s for s in mine if s.eligible]
        assert record["counts"]["selected"] == len(mine)
        assert record["counts"]["eligible"] == len(eligible)
        if subset == "candor_turn_taking":
            early = sum(s.intended["outcome"] == "early_start" for s in eligible)
            assert record["metrics"]["early_start_rate"]["count"] == early
            within_2 = sum(s.intended["outcome"] == "response"
                           and float(s.intended["latency_s"]) <= 2.0 for s in eligible)
            assert record["metrics"]["response_rate_2s"]["count"] == within_2
        if subset == "synthetic_user_interruption":
            exercised = [s for s in eligible if s.intended["outcome"] != "not_exercised"]
            metrics = record["metrics"]
            assert metrics["exercised_rate"]["count"] == len(exercised)
            unknown = len(mine) - len(exercised)
            share = metrics["speaking_at_end_rate"]
            assert share["selected_bounds"][1] - share["selected_bounds"][0] == pytest.approx(
                unknown / len(mine))


def test_demo_command_writes_identical_bytes_twice(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("a", "b"):  # the same command (it is in the provenance record) in two places
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        assert main(["fdb10", "build-tree", "--out", "tree"]) == 0
        assert main(["fdb10", "unified-score", "--tree", "tree", "--out", "scores"]) == 0
    for name in ("unified.json", "unified-samples.jsonl"):
        assert ((tmp_path / "a" / "scores" / name).read_bytes()
                == (tmp_path / "b" / "scores" / name).read_bytes())
