"""``resolve_inside``: a relative path may not reach outside its root, links included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from speecheval.core.errors import InputError
from speecheval.core.paths import resolve_inside


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "root" / "a").mkdir(parents=True)
    (tmp_path / "root" / "a" / "x.wav").write_bytes(b"x")
    (tmp_path / "outside.wav").write_bytes(b"o")
    return tmp_path / "root"


def refused(root: Path, relative: str) -> InputError:
    with pytest.raises(InputError) as info:
        resolve_inside(root, relative, sample_id="s/1")
    assert info.value.sample_id == "s/1"
    assert info.value.path == str(root / relative)
    return info.value


def test_plain_and_missing_paths_pass(root: Path) -> None:
    assert resolve_inside(root, "a/x.wav") == root / "a" / "x.wav"
    assert resolve_inside(root, "a/missing.wav") == root / "a" / "missing.wav"


def test_dot_dot_is_refused(root: Path) -> None:
    error = refused(root, "a/../../outside.wav")
    assert error.problem.startswith(f"resolves to {root.parent.resolve() / 'outside.wav'}, "
                                    f"outside the tree ({root.resolve()})")


def test_absolute_path_is_refused(root: Path) -> None:
    refused(root, str(root / "a" / "x.wav"))   # even one inside: relative paths only


def test_file_link_leaving_the_root_is_refused(root: Path) -> None:
    os.symlink("/etc/passwd", root / "a" / "passwd.wav")
    assert refused(root, "a/passwd.wav").problem.startswith("resolves to /etc/passwd,")


def test_folder_link_leaving_the_root_is_refused(root: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "x.wav").write_bytes(b"x")
    os.symlink(tmp_path / "elsewhere", root / "b")
    refused(root, "b/x.wav")


def test_links_inside_the_root_pass(root: Path) -> None:
    os.symlink("a/x.wav", root / "shared.wav")       # relative link, stays inside
    os.symlink(root / "a", root / "c")               # absolute link to a folder inside
    assert resolve_inside(root, "shared.wav") == root / "shared.wav"
    assert resolve_inside(root, "c/x.wav") == root / "c" / "x.wav"


def test_root_reached_through_a_link_is_its_real_self(root: Path, tmp_path: Path) -> None:
    os.symlink(root, tmp_path / "alias")
    assert resolve_inside(tmp_path / "alias", "a/x.wav") == tmp_path / "alias" / "a" / "x.wav"


def test_link_loop_is_an_input_error(root: Path) -> None:
    os.symlink("loop2", root / "loop1")
    os.symlink("loop1", root / "loop2")
    error = refused(root, "loop1")
    assert error.problem.startswith("cannot resolve the path: ")


def test_fast_answer_agrees_with_full_resolution(root: Path, tmp_path: Path) -> None:
    """Every path the lstat-only check passes resolves to ``real(root) / relative``; every
    link, ``..`` or missing component is left to the full resolution."""
    from speecheval.core.paths import _plainly_inside

    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / "out")       # folder link leaving the root
    os.symlink("a", root / "inside")                        # folder link staying inside
    os.symlink("x.wav", root / "a" / "y.wav")               # file link staying inside
    os.symlink(root, tmp_path / "alias")                    # the root reached through a link
    cases = {"a/x.wav": True, "a": True, "a/./x.wav": True, "./a//x.wav": True, "a/y.wav": False,
             "inside/x.wav": False, "out/x.wav": False, "a/../a/x.wav": False,
             "a/missing.wav": False, "a/x.wav/under": False, str(root / "a"): False}
    for base in (root, tmp_path / "alias"):
        for relative, plain in cases.items():
            assert _plainly_inside(base, relative) is plain, relative
            assert _plainly_inside(base, Path(relative)) is plain, relative
            if plain:
                assert (base / relative).resolve() == base.resolve() / Path(relative)
    assert resolve_inside(tmp_path / "alias", "inside/x.wav") == tmp_path / "alias/inside/x.wav"
    refused(tmp_path / "alias", "out/x.wav")
