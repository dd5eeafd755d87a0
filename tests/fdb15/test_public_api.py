"""``speecheval.fdb15``: score_tree gives the numbers ``fdb15 score`` writes (the command
runs the same timing computation, once), bad input is an InputError, the public names
are those of ``__all__`` and importing the module is cheap."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from api_numbers import differences, heavy_in, json_lines, modules_after_import

from speecheval import fdb15
from speecheval.cli import main
from speecheval.core.errors import InputError
from speecheval.fdb.v15.scoring import trials as scoring


def test_score_tree_gives_the_numbers_fdb15_score_writes(
        api_inputs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = api_inputs / "tree15"
    calls: list[int] = []
    real = scoring.score_timing

    def counted(trials: Any, executor: Any) -> Any:
        calls.append(len(trials))
        return real(trials, executor)

    monkeypatch.setattr(scoring, "score_timing", counted)
    assert main(["fdb15", "score", "--tree", str(tree), "--out", str(tmp_path / "t"),
                 "--jobs", "1"]) == 0
    assert calls == [2]
    written = json.loads((tmp_path / "t" / "timing.json").read_text(encoding="utf-8"))

    timing = fdb15.score_tree(tree, jobs=1)
    assert calls == [2, 2]  # the public function runs the command's computation
    assert differences({name: s.report_dict() for name, s in timing.summary.items()},
                       written["scenarios"]) == []
    assert differences([trial.report_dict() for trial in timing.scored],
                       json_lines(tmp_path / "t" / "timing-samples.jsonl")) == []
    assert differences(timing.settings, written["provenance"]["settings"]) == []
    assert [t.timing.stop_status for t in timing.scored] == ["not_speaking_at_onset", "stopped"]


def test_the_command_starts_its_judge_before_timing_the_trials(
        api_inputs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # why fdb15 score calls score_timing rather than score_tree: a judge that cannot
    # start (here its instruction file is missing) stops the command before any trial
    # is timed, and a bad tree is still reported before the judge
    calls: list[int] = []
    monkeypatch.setattr(scoring, "score_timing", lambda trials, executor: calls.append(1))
    judge = ["--judge", "openai", "--judge-instruction", str(tmp_path / "behavior.txt")]
    assert main(["fdb15", "score", "--tree", str(api_inputs / "tree15"),
                 "--out", str(tmp_path / "t"), *judge]) == 2
    assert calls == [] and not (tmp_path / "t").exists()
    assert "judge instruction file is missing" in capsys.readouterr().err
    assert main(["fdb15", "score", "--tree", str(tmp_path), "--out", str(tmp_path / "t"),
                 *judge]) == 2
    assert "scenario folder" in capsys.readouterr().err


def test_bad_trees_are_input_errors_naming_the_sample(api_inputs: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no Full-Duplex-Bench v1.5 scenario folder"):
        fdb15.score_tree(tmp_path, jobs=1)
    tree = tmp_path / "tree"
    shutil.copytree(api_inputs / "tree15", tree)
    (tree / "user_backchannel" / "1" / "output.wav").unlink()
    with pytest.raises(InputError, match="output.wav is missing") as raised:
        fdb15.score_tree(tree, jobs=1)
    assert "user_backchannel/1" in str(raised.value)


def test_public_names_and_a_cheap_import() -> None:
    assert fdb15.__all__ == ["score_tree"]
    modules = modules_after_import("speecheval.fdb15")
    assert heavy_in(modules) == []
    assert not any(name.startswith("speecheval.fdb.") for name in modules)
