"""``fdb10 reference-evaluate``: the real official evaluator on the official examples.

The evaluator runs from ``../shared/fixtures/fdb-official-evaluator`` (laid out like a
checkout); the trees are the official examples converted as in
``test_official_examples.py``. Official values worked out by hand from its code:

- turn-taking: first word at 3.36 s, E = 2.01 s, latency 3.36 - 2.01 = 1.35 s, and 7
  words over more than 1 s, so a take-over: rate 1/1 = 1.0;
- pause handling: 12 words over 4.68 s, a take-over: rate 1.0.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.core.hashing import sha256_file
from speecheval.fdb.common.official_evaluator import PINNED_SHA256
from speecheval.fdb.v10.reference.column import load_reference_column
from speecheval.fdb.v10.reference.evaluate import parse_results

pytest.importorskip("dotenv")
pytest.importorskip("openai")


@pytest.fixture
def evaluator(fixtures_dir: Path) -> Path:
    return fixtures_dir / "fdb-official-evaluator"


def evaluate(tree: Path, evaluator: Path, *subsets: str) -> int:
    args = ["fdb10", "reference-evaluate", "--tree", str(tree), "--reference-source",
            str(evaluator)]
    for subset in subsets:
        args += ["--subset", subset]
    return main(args)


def test_pinned_table_agrees_with_the_fixture(evaluator: Path) -> None:
    listed = {}
    for line in (evaluator / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split(maxsplit=1)
        listed[name.removeprefix("./")] = digest
    assert listed == PINNED_SHA256
    assert PINNED_SHA256["v1_v1.5/evaluation/evaluate.py"].startswith("ae362d71")


def test_official_examples(examples: Path, evaluator: Path) -> None:
    assert evaluate(examples, evaluator) == 0
    summary = json.loads((examples / "summary.json").read_text())
    assert summary["inputs"] == {"manifest_sha256": sha256_file(examples / "manifest.json"),
                                 "asr_sha256": sha256_file(examples / "asr.json")}
    assert summary["subsets"]["candor_turn_taking"] == {
        "take_over_rate": 1.0, "latency_s": pytest.approx(1.35, abs=1e-9)}
    assert summary["subsets"]["synthetic_pause_handling"] == {"take_over_rate": 1.0}
    runs = summary["runs"]
    assert runs["candor_turn_taking"]["printed"][1].startswith("Average latency:  1.34999")
    assert runs["synthetic_user_interruption"]["status"] == "skipped"
    assert "judge not configured" in runs["synthetic_user_interruption"]["reason"]
    assert "synthetic_user_interruption" not in summary["subsets"]
    # unified-score reads it as its reference column
    column, note = load_reference_column(examples, summary["inputs"]["manifest_sha256"],
                                         summary["inputs"]["asr_sha256"])
    assert column is not None and "matches" in note
    assert column.subsets["candor_turn_taking"]["latency_s"] == pytest.approx(1.35)
    assert column.label("latency_s") == "official"


def test_a_silent_system_is_not_computable(examples: Path, evaluator: Path) -> None:
    # No word in the transcript: take_turn_list = [0], latency_list = [], and the
    # evaluator divides by len([]) == 0.
    sample = examples / "candor_turn_taking" / "1"
    (sample / "output.json").write_text(json.dumps({"text": "", "chunks": []}))
    asr = json.loads((examples / "asr.json").read_text())
    asr["transcripts"]["candor_turn_taking/1"] = sha256_file(sample / "output.json")
    (examples / "asr.json").write_text(json.dumps(asr))
    assert evaluate(examples, evaluator, "candor_turn_taking") == 0
    summary = json.loads((examples / "summary.json").read_text())
    assert summary["subsets"]["candor_turn_taking"] == {"status": "not computable"}
    run = summary["runs"]["candor_turn_taking"]
    assert run["status"] == "not computable" and "ZeroDivisionError" in run["reason"]


def test_a_subset_is_never_evaluated_twice(examples: Path, evaluator: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert evaluate(examples, evaluator, "synthetic_pause_handling") == 0
    before = (examples / "summary.json").read_bytes()
    assert evaluate(examples, evaluator, "synthetic_pause_handling") == 2
    assert "already in summary.json" in capsys.readouterr().err
    assert (examples / "summary.json").read_bytes() == before
    # another subset is added to the same summary
    assert evaluate(examples, evaluator, "candor_turn_taking") == 0
    summary = json.loads((examples / "summary.json").read_text())
    assert sorted(summary["subsets"]) == ["candor_turn_taking", "synthetic_pause_handling"]


def test_a_changed_evaluator_file_stops_the_command(examples: Path, evaluator: Path,
                                                    tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    checkout = tmp_path / "checkout"
    shutil.copytree(evaluator, checkout)
    script = checkout / "v1_v1.5" / "evaluation" / "eval_smooth_turn_taking.py"
    script.chmod(0o644)
    script.write_text(script.read_text().replace("latency < 0", "latency < -1"))
    assert evaluate(examples, checkout) == 2
    err = capsys.readouterr().err
    assert "v1_v1.5/evaluation/eval_smooth_turn_taking.py differs from the pinned" in err
    assert not (examples / "summary.json").exists()


def test_a_missing_evaluator_file_is_named(examples: Path, evaluator: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    checkout = tmp_path / "checkout"
    shutil.copytree(evaluator, checkout)
    (checkout / "v1_v1.5" / "evaluation" / "get_timing.py").unlink()
    assert evaluate(examples, checkout) == 2
    assert "lacks v1_v1.5/evaluation/get_timing.py" in capsys.readouterr().err


def test_a_summary_of_other_transcripts_is_refused(examples: Path, evaluator: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert evaluate(examples, evaluator, "synthetic_pause_handling") == 0
    asr = json.loads((examples / "asr.json").read_text())
    asr["note"] = "transcribed again"
    (examples / "asr.json").write_text(json.dumps(asr))
    assert evaluate(examples, evaluator, "candor_turn_taking") == 2
    assert "different asr.json" in capsys.readouterr().err


def test_backchannel_without_torchaudio_is_skipped(fixtures_dir: Path, evaluator: Path,
                                                   tmp_path: Path) -> None:
    if importlib.util.find_spec("torchaudio") is not None:
        pytest.skip("torchaudio is installed here: the backchannel script can run")
    from speecheval.fdb.v10.builder.trees import build_mini_tree

    tree = tmp_path / "mini"
    build_mini_tree(tree)
    assert main(["fdb10", "reference-evaluate", "--tree", str(tree), "--reference-source",
                 str(evaluator), "--subset", "icc_backchannel"]) == 0
    run = json.loads((tree / "summary.json").read_text())["runs"]["icc_backchannel"]
    assert run["status"] == "skipped" and "torchaudio" in run["reason"]


def test_result_parsing_of_every_printed_form() -> None:
    stdout = ("[Result]\nAverage rating:  4.0\nAverage take turn:  1.0\n"
              "Average latency:  4.08\n-----\nJSD - Mean: ignored after the block\n")
    values, printed = parse_results(stdout)
    assert values == {"mean_rating": 4.0, "take_over_rate": 1.0, "latency_s": 4.08}
    assert printed == ["Average rating:  4.0", "Average take turn:  1.0",
                       "Average latency:  4.08"]
    assert parse_results("Traceback ...\nZeroDivisionError: division by zero\n") == ({}, [])


def test_a_python_without_the_evaluator_imports_is_refused(
        examples: Path, evaluator: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fdb10", "reference-evaluate", "--tree", str(examples),
                 "--reference-source", str(evaluator), "--python", "/bin/false"]) == 2
    err = capsys.readouterr().err
    assert "imports python-dotenv and openai" in err and "lacks dotenv, openai" in err
    assert not (examples / "summary.json").exists()


def test_an_unknown_or_absent_subset_is_refused(examples: Path, evaluator: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert evaluate(examples, evaluator, "candor_turn_takin") == 2
    assert "unknown subset 'candor_turn_takin'" in capsys.readouterr().err
    assert evaluate(examples, evaluator, "icc_backchannel") == 2
    assert "no eligible sample of icc_backchannel" in capsys.readouterr().err


def test_a_transcript_that_differs_from_asr_json_is_refused(
        examples: Path, evaluator: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The summary is bound to asr.json: evaluating another transcript would break that.
    (examples / "candor_turn_taking" / "1" / "output.json").write_text(
        json.dumps({"text": "", "chunks": []}))
    assert evaluate(examples, evaluator, "candor_turn_taking") == 2
    err = capsys.readouterr().err
    assert "sample candor_turn_taking/1" in err and "output.json differs from asr.json" in err
    assert not (examples / "summary.json").exists()
