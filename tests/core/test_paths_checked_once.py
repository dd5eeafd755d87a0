"""``folders_checked_once``: inside it each folder is looked at once; outside, every time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from speecheval.core import paths
from speecheval.core.errors import InputError
from speecheval.core.paths import folders_checked_once, resolve_inside


def test_each_folder_is_listed_once_inside_the_block(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("f1", "f2"):
        (tmp_path / "a" / "b" / name).write_text("x")
    looked: list[str] = []
    listed: list[str] = []
    real_lstat, real_scandir = os.lstat, os.scandir

    def counting(path: str) -> os.stat_result:
        looked.append(path)
        return real_lstat(path)

    def listing(path: str) -> object:
        listed.append(path)
        return real_scandir(path)

    monkeypatch.setattr(paths.os, "lstat", counting)
    monkeypatch.setattr(paths.os, "scandir", listing)
    for name in ("f1", "f2"):
        resolve_inside(tmp_path, f"a/b/{name}")
    assert (len(looked), listed) == (6, [])  # a, a/b and the file, for each of the two files
    looked.clear()
    with folders_checked_once():
        for name in ("f1", "f2"):
            assert resolve_inside(tmp_path, f"a/b/{name}") == tmp_path / "a" / "b" / name
    # the root, a and a/b listed once each; no lstat of a file or folder
    assert (looked, listed) == ([], [str(tmp_path), str(tmp_path / "a"),
                                     str(tmp_path / "a" / "b")])


def test_links_and_missing_files_inside_the_block_take_the_full_resolution(
        tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    (tree / "s").mkdir(parents=True)
    outside.mkdir()
    (outside / "f").write_text("x")
    (tree / "s" / "inside").write_text("x")
    (tree / "s" / "out").symlink_to(outside / "f")
    (tree / "s" / "shared").symlink_to(tree / "s" / "inside")
    with folders_checked_once():
        assert resolve_inside(tree, "s/inside") == tree / "s" / "inside"
        assert resolve_inside(tree, "s/shared") == tree / "s" / "shared"  # a link inside
        assert resolve_inside(tree, "s/missing") == tree / "s" / "missing"  # for the caller
        assert resolve_inside(tree, "s/inside/x") == tree / "s" / "inside" / "x"  # not a folder
        with pytest.raises(InputError, match="outside the tree"):
            resolve_inside(tree, "s/out")


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


def test_a_folder_plain_below_one_root_is_checked_again_below_another(tmp_path: Path
                                                                      ) -> None:
    # root/link -> outside: below the root "root/link" the folder "root/link/s" is plain
    # (s is no link), but below the root "root" the path goes through the link.
    outside, root = tmp_path / "outside", tmp_path / "root"
    (outside / "s").mkdir(parents=True)
    (outside / "s" / "f").write_text("x")
    root.mkdir()
    (root / "link").symlink_to(outside)
    with folders_checked_once():
        assert resolve_inside(root / "link", "s/f") == root / "link" / "s" / "f"
        with pytest.raises(InputError, match="outside the tree"):
            resolve_inside(root, "link/s/f")


def test_is_file_inside_the_block_answers_as_path_is_file(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("x")
    (tmp_path / "to_f").symlink_to(tmp_path / "f")
    (tmp_path / "to_d").symlink_to(tmp_path / "d")
    (tmp_path / "broken").symlink_to(tmp_path / "nothing")
    names = ["d", "f", "to_f", "to_d", "broken", "missing", "f/under_a_file"]
    outside = [paths.is_file(tmp_path / n) for n in names]
    with folders_checked_once():
        inside = [paths.is_file(tmp_path / n) for n in names]
    assert inside == outside == [False, True, True, False, False, False, False]


@pytest.mark.parametrize("folder_written", ["s/d/.", "s/d/"])
def test_a_path_ending_in_a_folder_does_not_stand_for_that_folder_s_files(
        tmp_path: Path, folder_written: str) -> None:
    # s/x is a plain file, s/d/x a link out: had "s/d/." (or "s/d/") recorded s as the
    # folder of the files written "s/d/NAME", s/d/x would be looked up as s's x, and pass
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    (tree / "s" / "d").mkdir(parents=True)
    outside.mkdir()
    (outside / "x").write_text("x")
    (tree / "s" / "x").write_text("x")
    (tree / "s" / "d" / "x").symlink_to(outside / "x")
    with folders_checked_once():
        assert resolve_inside(tree, folder_written) == tree / folder_written
        with pytest.raises(InputError, match="outside the tree"):
            resolve_inside(tree, "s/d/x")


def test_files_of_a_folder_checked_once_still_have_their_own_entry_checked(
        tmp_path: Path) -> None:
    # the shortcut for a known folder looks up each file's own entry: a link out in a
    # folder whose other file was plain is refused, an absolute path too
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    (tree / "s").mkdir(parents=True)
    outside.mkdir()
    (outside / "f").write_text("x")
    (tree / "s" / "plain").write_text("x")
    (tree / "s" / "out").symlink_to(outside / "f")
    (tree / "top").write_text("x")
    with folders_checked_once():
        assert resolve_inside(tree, "s/plain") == tree / "s" / "plain"
        with pytest.raises(InputError, match="outside the tree"):
            resolve_inside(tree, "s/out")
        with pytest.raises(InputError, match="outside the tree"):
            resolve_inside(tree, "s/../../outside/f")
        assert resolve_inside(tree, "top") == tree / "top"
        with pytest.raises(InputError, match="outside the tree"):
            resolve_inside(tree, str(outside / "f"))
