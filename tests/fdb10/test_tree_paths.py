"""Files of a tree must really lie in the tree: links that leave it are refused (exit 2)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.core.hashing import sha256_file

from .treekit import Spec, interrupt, pauses, turn, write_tree

P, TT, UI = "synthetic_pause_handling", "candor_turn_taking", "synthetic_user_interruption"


@pytest.fixture
def tree(tmp_path: Path, hand_segments) -> Path:
    hand_segments({f"{UI}/u": [(0.0, 6.0)]})
    return write_tree(tmp_path / "tree", [
        Spec(P, "p", 6.0, [("a", 2.5, 2.7)], pauses((2, 3), (4, 5))),
        Spec(TT, "t", 6.0, [("a", 2.5, 2.7)], turn(2.0)),
        Spec(UI, "u", 10.0, [("a", 8.0, 8.2)], interrupt(5.0, 7.0)),
    ])


def score(tree: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["fdb10", "unified-score", "--tree", str(tree), "--out", str(out),
                 "--jobs", "1"])
    return code, capsys.readouterr().err


def assert_refused(code: int, err: str, out: Path, sample_id: str | None, path: Path) -> None:
    assert code == 2
    line = err.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith("error: " + (f"sample {sample_id}: " if sample_id else "")
                           + f"{path}: resolves to ")
    assert "outside the tree" in line
    assert not out.exists()


def test_output_wav_linked_to_etc_passwd_is_refused(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wav = tree / P / "p" / "output.wav"
    wav.unlink()
    os.symlink("/etc/passwd", wav)
    code, err = score(tree, tmp_path / "out", capsys)
    assert_refused(code, err, tmp_path / "out", f"{P}/p", wav)
    assert "resolves to /etc/passwd," in err


def test_output_wav_linked_outside_with_the_right_hash_is_refused(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The dangerous case: the linked file is a valid WAV with the manifest's sha256, so
    # every other check passes and, before the fix, the sample was scored from outside.
    wav = tree / UI / "u" / "output.wav"
    outside = tmp_path / "elsewhere.wav"
    shutil.move(wav, outside)
    os.symlink(outside, wav)
    code, err = score(tree, tmp_path / "out", capsys)
    assert_refused(code, err, tmp_path / "out", f"{UI}/u", wav)


def test_sample_folder_linked_elsewhere_is_refused(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tree / TT / "t"
    shutil.move(folder, tmp_path / "t-elsewhere")
    os.symlink(tmp_path / "t-elsewhere", folder)
    code, err = score(tree, tmp_path / "out", capsys)
    # the first file read from the sample is its output.wav
    assert_refused(code, err, tmp_path / "out", f"{TT}/t", folder / "output.wav")


def test_summary_json_linked_outside_is_refused_before_any_output(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "summary.json"
    outside.write_text(json.dumps({"kind": "fdb-v1.0-reference-summary"}))
    os.symlink(outside, tree / "summary.json")
    code, err = score(tree, tmp_path / "out", capsys)
    assert_refused(code, err, tmp_path / "out", None, tree / "summary.json")


def test_manifest_linked_outside_is_refused(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.move(tree / "manifest.json", tmp_path / "manifest.json")
    os.symlink(tmp_path / "manifest.json", tree / "manifest.json")
    code, err = score(tree, tmp_path / "out", capsys)
    assert_refused(code, err, tmp_path / "out", None, tree / "manifest.json")


def test_links_that_stay_inside_the_tree_are_followed(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # p's and t's outputs are both 6 s of silence: p links to t's file (a relative link),
    # and the whole tree is reached through a link to it.
    wav = tree / P / "p" / "output.wav"
    wav.unlink()
    os.symlink(f"../../{TT}/t/output.wav", wav)
    assert sha256_file(wav) == sha256_file(tree / TT / "t" / "output.wav")
    os.symlink(tree, tmp_path / "alias")
    code, err = score(tmp_path / "alias", tmp_path / "out", capsys)
    assert (code, err) == (0, "")
    rows = (tmp_path / "out" / "unified-samples.jsonl").read_text().splitlines()
    assert json.loads(rows[0])["pause_intrusion"] is True   # word 2.5 s after the pause at 2


def test_show_refuses_a_linked_output(tree: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    wav = tree / TT / "t" / "output.wav"
    wav.unlink()
    os.symlink("/etc/passwd", wav)
    out = tmp_path / "t.png"
    assert main(["fdb10", "show", "--tree", str(tree), f"{TT}/t", "--out", str(out)]) == 2
    assert_refused(2, capsys.readouterr().err, out, f"{TT}/t", wav)
