"""``dist_version.version`` answers as ``importlib.metadata.version`` does, reading the
metadata folder itself where it is plain and asking importlib.metadata where not."""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

import pytest

from speecheval.core import dist_version
from speecheval.core.dist_version import version


@pytest.mark.parametrize("name", ["numpy", "click", "rapidfuzz", "soundfile", "speecheval",
                                  "Click", "silero-vad", "silero_vad", "PyYAML"])
def test_installed_versions_are_importlib_metadatas(name: str) -> None:
    try:
        expected: str | None = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        expected = None
    assert version(name) == expected


def _dist(folder: Path, stem: str, metadata: str) -> None:
    info = folder / stem
    info.mkdir(parents=True)
    (info / "METADATA").write_text(metadata, encoding="utf-8")


def _fresh_path(monkeypatch: pytest.MonkeyPatch, *folders: Path) -> None:
    monkeypatch.setattr(sys, "path", [str(folder) for folder in folders])
    dist_version._children.cache_clear()
    importlib.invalidate_caches()


def test_a_plain_folder_is_read_and_names_compare_normalised(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # "Foo.Bar" and "foo-bar" normalise to foo_bar, the folder's name; the version is
    # the first Version header, not Metadata-Version and not the body's text
    _dist(tmp_path, "foo_bar-1.2.3.dist-info",
          "Metadata-Version: 2.1\nName: foo-bar\nversion: 1.2.3\nVersion: 9\n\nVersion: 8\n")
    _fresh_path(monkeypatch, tmp_path)
    try:
        for name in ("Foo.Bar", "foo-bar", "FOO__bar"):
            assert dist_version._listed_version(name) == "1.2.3"
            assert version(name) == importlib.metadata.version(name) == "1.2.3"
    finally:
        dist_version._children.cache_clear()


def test_the_first_path_folder_holding_the_name_wins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    _dist(first, "pkg-2.0.dist-info", "Name: pkg\nVersion: 2.0\n")
    _dist(second, "pkg-1.0.dist-info", "Name: pkg\nVersion: 1.0\n")
    _fresh_path(monkeypatch, tmp_path / "missing", first, second)
    try:
        assert version("pkg") == importlib.metadata.version("pkg") == "2.0"
    finally:
        dist_version._children.cache_clear()


@pytest.mark.parametrize("layout", ["two folders", "egg-info", "no version header"])
def test_what_is_not_plain_is_importlib_metadatas_answer(
        layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if layout == "two folders":
        _dist(tmp_path, "pkg-1.0.dist-info", "Name: pkg\nVersion: 1.0\n")
        _dist(tmp_path, "pkg-2.0.dist-info", "Name: pkg\nVersion: 2.0\n")
    elif layout == "egg-info":
        _dist(tmp_path, "pkg-3.0.egg-info", "Name: pkg\nVersion: 3.0\n")
        (tmp_path / "pkg-3.0.egg-info" / "METADATA").rename(
            tmp_path / "pkg-3.0.egg-info" / "PKG-INFO")
    else:
        _dist(tmp_path, "pkg-1.0.dist-info", "Name: pkg\n")
    _fresh_path(monkeypatch, tmp_path)
    try:
        assert dist_version._listed_version("pkg") is None
        try:
            expected: str | None = importlib.metadata.version("pkg")
        except importlib.metadata.PackageNotFoundError:
            expected = None
        assert version("pkg") == expected
    finally:
        dist_version._children.cache_clear()


def test_a_distribution_found_nowhere_is_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh_path(monkeypatch, tmp_path)
    try:
        assert version("no-such-distribution-here") is None
    finally:
        dist_version._children.cache_clear()
