"""The console report, the reference column and byte-identical reruns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.core.hashing import sha256_file

from .treekit import Spec, interrupt, pauses, turn, write_tree

P, TT, UI = "synthetic_pause_handling", "candor_turn_taking", "synthetic_user_interruption"


@pytest.fixture
def tree(tmp_path: Path, hand_segments) -> Path:
    hand_segments({f"{UI}/u": [(0.0, 5.5), (8.0, 9.0)]})
    return write_tree(tmp_path / "tree", [
        Spec(P, "p", 6.0, [("a", 2.5, 2.7)], pauses((2, 3), (4, 5))),
        Spec(TT, "t", 6.0, [("a", 2.5, 2.7)], turn(2.0)),
        Spec(TT, "t2", 6.0, [], turn(2.0), eligible=False, reasons=["pacing"]),
        Spec(UI, "u", 10.0, [("a", 8.0, 8.2)], interrupt(5.0, 7.0)),
    ])


def summary(tree: Path, **changes: object) -> None:
    data = {"kind": "fdb-v1.0-reference-summary", "schema_version": 1,
            "inputs": {"manifest_sha256": sha256_file(tree / "manifest.json"),
                       "asr_sha256": sha256_file(tree / "asr.json")},
            "judge": {"model": "gpt-4o-2024-08-06", "official": True, "keys": ["mean_rating"]},
            "subsets": {TT: {"take_over_rate": 1.0, "latency_s": 0.5},
                        UI: {"take_over_rate": 1.0, "mean_rating": 4.0}}}
    data.update(changes)
    (tree / "summary.json").write_text(json.dumps(data))


def run(tree: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["fdb10", "unified-score", "--tree", str(tree), "--out", str(out),
                 "--jobs", "1"]) == 0
    return capsys.readouterr().out


def test_rerun_writes_identical_bytes(tree: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    run(tree, tmp_path / "a", capsys)
    (tmp_path / "a").rename(tmp_path / "first")  # the same command again (it is recorded)
    run(tree, tmp_path / "a", capsys)
    for name in ("unified.json", "unified-samples.jsonl"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "first" / name).read_bytes()
    data = json.loads((tmp_path / "a" / "unified.json").read_text())
    assert data["definitions_version"] == "fdb-v1.0-unified-4"
    provenance = data["provenance"]
    assert provenance["kind"] == "core.provenance"
    assert provenance["inputs"] == {"asr.json": sha256_file(tree / "asr.json"),
                                    "manifest.json": sha256_file(tree / "manifest.json")}
    assert provenance["command"] == ["speecheval", "fdb10", "unified-score", "--tree",
                                     str(tree), "--out", str(tmp_path / "a"), "--jobs", "1"]
    assert provenance["settings"]["definitions_version"] == "fdb-v1.0-unified-4"
    assert set(provenance["settings"]) == {"asr", "dataset_revision", "definitions_version",
                                           "vad", "vad_cache"}
    assert provenance["settings"]["vad_cache"] == "read-write"  # the tests' private folder
    rows = (tmp_path / "a" / "unified-samples.jsonl").read_text().splitlines()
    # one row per selected sample of the scored subsets, ineligible ones included
    assert [json.loads(r)["sample_id"] for r in rows] == [
        f"{P}/p", f"{TT}/t", f"{TT}/t2", f"{UI}/u"]


def test_report_lines(tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run(tree, tmp_path / "a", capsys)
    # turn-taking: t responds at 0.5 s; t2 ineligible -> 1 of 1, bounds [1/2, 2/2]
    assert "candor_turn_taking (smooth_turn_taking): 2 selected of 119 declared, 1 eligible" \
        in out
    assert "ineligible 1: pacing 1" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("response_rate_1s")
                and "1/1" in x)
    assert "[0.500, 1.000]" in line          # selected bounds
    assert "reference column: none" in out


def test_reference_column_when_hashes_match(tree: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    summary(tree)
    out = run(tree, tmp_path / "a", capsys)
    assert "reference column (official evaluator):" in out
    assert "(official judge)" in next(x for x in out.splitlines() if "mean_rating" in x)
    assert "(official)" in next(x for x in out.splitlines() if "take_over_rate" in x)


def test_non_official_judge_is_labelled_by_model(tree: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    summary(tree, judge={"model": "qwen2.5-7b-instruct", "official": False,
                         "keys": ["mean_rating"]})
    out = run(tree, tmp_path / "a", capsys)
    rating = next(x for x in out.splitlines() if "mean_rating" in x)
    assert "judge qwen2.5-7b-instruct" in rating
    # the evaluator's own numbers stay official whatever the judge
    assert "(official)" in next(x for x in out.splitlines()
                                if x.strip().startswith("latency_s"))


def test_judge_that_does_not_say_it_is_official_is_labelled(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary(tree, judge={"model": "local-llm", "keys": ["mean_rating"]})
    out = run(tree, tmp_path / "a", capsys)
    assert "judge local-llm" in next(x for x in out.splitlines() if "mean_rating" in x)


def test_reference_column_left_out_when_an_input_changed(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary(tree, inputs={"manifest_sha256": sha256_file(tree / "manifest.json"),
                          "asr_sha256": "0" * 64})
    out = run(tree, tmp_path / "a", capsys)
    assert "summary.json was made from a different asr.json" in out
    assert "reference column (official evaluator):" not in out


def test_pooled_ratios_print_the_same_decimals_on_both_sides(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run(tree, tmp_path / "a", capsys)
    lines: dict[str, str] = {}
    for line in out.splitlines():  # the first subset that has the metric: synthetic pauses
        if line.startswith("  ") and line.split():
            lines.setdefault(line.split()[0], line)
    # pause sample p: pauses [2, 3] and [4, 5] (2 s), word 2.5-2.7 covers 0.2 s of pause 1;
    # before the fix the seconds printed as "0.20/2", a number of seconds over a count.
    assert "0.20/2.00 s over 1 samples" in lines["intrusion_s_per_pause_s"]
    # one of the two owned intervals holds a word onset: a count ratio, whole numbers
    assert "1/2 over 1 samples" in lines["pause_intrusion_per_pause"]
    # interruption u: speech 0-5.5 s inside [S, R] = [5, 7] is 0.5 s of 2 s
    assert "0.50/2.00 s over 1 samples" in lines["speech_s_per_interruption_s"]


def test_reference_column_prints_null_as_n_a(tree: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    summary(tree, subsets={TT: {"take_over_rate": 0.0, "latency_s": None}})
    out = run(tree, tmp_path / "a", capsys)
    latency = next(x for x in out.splitlines() if x.strip().startswith("latency_s"))
    assert latency.split()[1] == "n/a" and "None" not in out
    assert next(x for x in out.splitlines() if "take_over_rate" in x).split()[1] == "0.000"


def test_a_summary_off_its_format_is_left_out_naming_key_and_problem(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary(tree, judge={"model": "m", "oficial": True, "keys": []})  # misspelt: not official
    out = run(tree, tmp_path / "a", capsys)
    assert "reference column (official evaluator):" not in out
    note = next(x for x in out.splitlines() if x.startswith("reference column left out"))
    assert note.endswith("summary.json: judge.oficial (line 1): unknown key; allowed keys "
                         "are keys, model, official")


def test_a_summary_with_a_text_number_is_left_out(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary(tree, inputs={"manifest_sha256": 1, "asr_sha256": "x"})
    out = run(tree, tmp_path / "a", capsys)
    assert "summary.json: inputs.manifest_sha256 (line 1): must be a string, got 1" in out
