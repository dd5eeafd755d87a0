"""``folders_checked_once``: inside it each folder is looked at once; outside, every time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from speecheval.core import paths
from speecheval.core.errors import InputError
from speecheval.core.paths import folders_checked_once, resolve_inside


def test_each_folder_is_checked_once_inside_the_block(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("f1", "f2"):
        (tmp_path / "a" / "b" / name).write_text("x")
    looked: list[str] = []
    real_lstat = os.lstat

    def counting(path: str) -> os.stat_result:
        looked.append(path)
        return real_lstat(path)

    monkeypatch.setattr(paths.os, "lstat", counting)
    for name in ("f1", "f2"):
        resolve_inside(tmp_path, f"a/b/{name}")
    assert len(looked) == 6  # a, a/b and the file, for each of the two files
    looked.clear()
    with folders_checked_once():
        for name in ("f1", "f2"):
            assert resolve_inside(tmp_path, f"a/b/{name}") == tmp_path / "a" / "b" / name
    assert len(looked) == 4  # a and a/b once, then each file


def test_a_folder_linked_out_after_the_block_is_refused(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    (tree / "s").mkdir(parents=True)
    outside.mkdir()
    (outside / "f").write_text("x")
    with folders_checked_once():
        resolve_inside(tree, "s/f")
    (tree / "s").rmdir()
    (tree / "s").symlink_to(outside)
    with pytest.raises(InputError, match="outside the tree"):
        resolve_inside(tree, "s/f")
    with folders_checked_once(), pytest.raises(InputError, match="outside the tree"):
        resolve_inside(tree, "s/f")  # a new block starts with nothing known
