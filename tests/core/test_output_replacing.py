"""core.output.replacing: --force replaces a command's own output atomically, and only that.

The new output is complete beside the old one before the old one is moved aside; a
failure while writing leaves the previous output byte for byte as it was, and a target
the command did not write (no marker file, a link, the root, the working directory) is
refused before any work.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from speecheval.core.errors import InputError
from speecheval.core.output import (
    new_output_dir,
    new_run_dir,
    refuse_existing,
    replacing,
)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _old_output(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    with new_output_dir(out) as staging:
        (staging / "result.json").write_text("old\n")
        (staging / "rows.jsonl").write_text("a\nb\n")
    return out


def test_without_force_an_existing_output_is_refused_and_says_force(tmp_path: Path) -> None:
    out = _old_output(tmp_path)
    with pytest.raises(InputError, match="give --force to replace it"), replacing(
            out, force=False, shape="result.json"), new_output_dir(out):
        pass
    assert _snapshot(out) == {"result.json": b"old\n", "rows.jsonl": b"a\nb\n"}


def test_force_replaces_the_whole_folder_and_leaves_no_sibling(tmp_path: Path) -> None:
    out = _old_output(tmp_path)
    with replacing(out, force=True, shape="result.json"), new_output_dir(out) as staging:
        assert staging != out and staging.parent == out.parent   # written beside it
        assert (out / "rows.jsonl").exists()                     # the old one still whole
        (staging / "result.json").write_text("new\n")
    assert _snapshot(out) == {"result.json": b"new\n"}           # nothing of the old left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_failure_midway_leaves_the_old_output_byte_identical(tmp_path: Path) -> None:
    out = _old_output(tmp_path)
    before, inode = _snapshot(out), os.stat(out).st_ino
    with pytest.raises(RuntimeError, match="midway"), replacing(
            out, force=True, shape="result.json"), new_output_dir(out) as staging:
        (staging / "result.json").write_text("half")
        raise RuntimeError("failed midway")
    assert _snapshot(out) == before and os.stat(out).st_ino == inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_force_reaches_only_the_path_it_names(tmp_path: Path) -> None:
    out, other = _old_output(tmp_path), tmp_path / "other"
    other.mkdir()
    (other / "result.json").write_text("kept\n")
    with replacing(out, force=True, shape="result.json"), pytest.raises(
            InputError, match="already exists"):
        refuse_existing(other)
    assert refuse_existing(tmp_path / "new") == tmp_path / "new"


@pytest.mark.parametrize("make", ["no-marker", "link", "file-for-folder"])
def test_a_target_the_command_did_not_write_is_refused(tmp_path: Path, make: str) -> None:
    target = tmp_path / "target"
    if make == "no-marker":
        target.mkdir()
        (target / "precious.txt").write_text("mine")
    elif make == "link":
        real = _old_output(tmp_path)
        target.symlink_to(real)
    else:
        target.write_text("a file")
    with pytest.raises(InputError, match="--force"), replacing(
            target, force=True, shape="result.json"):
        pytest.fail("the block must not run")
    assert target.exists()


@pytest.mark.parametrize("where", ["root", "cwd", "parent of cwd"])
def test_the_root_and_the_working_directory_are_never_replaced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    inner = tmp_path / "work"
    inner.mkdir()
    (inner / "result.json").write_text("x")
    (tmp_path / "result.json").write_text("x")
    monkeypatch.chdir(inner)
    target = {"root": Path("/"), "cwd": Path("."), "parent of cwd": tmp_path}[where]
    with pytest.raises(InputError, match="refuses to replace"), replacing(
            target, force=True, shape="result.json"):
        pytest.fail("the block must not run")


@pytest.mark.parametrize("name", ["folder.html", "asr.json"])
def test_a_file_output_must_be_a_plain_file_of_its_kind(tmp_path: Path, name: str) -> None:
    page = tmp_path / "page.html"
    page.write_text("old")
    with replacing(page, force=True, shape=(".html",)):
        assert refuse_existing(page) == page
    other = tmp_path / name
    other.mkdir() if name.endswith(".html") else other.write_text("{}")
    with pytest.raises(InputError, match="not one"), replacing(other, force=True,
                                                                shape=(".html",)):
        pytest.fail("the block must not run")


def test_a_resumable_run_is_written_in_place_unless_it_replaces_one(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with new_run_dir(run) as folder:
        assert folder == run                          # in place: a failure can be resumed
        (folder / "run.json").write_text("first")
    with replacing(run, force=True, shape="run.json"), new_run_dir(run) as folder:
        assert folder != run and (run / "run.json").read_text() == "first"
        (folder / "run.json").write_text("second")
    assert (run / "run.json").read_text() == "second"
