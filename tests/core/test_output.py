"""Canonical JSON and atomic, new-only outputs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from speecheval.core.canonical_json import dumps, dumps_line
from speecheval.core.errors import InputError
from speecheval.core.output import atomic_write_text, create_new_output_dir, new_output_dir


def test_same_data_same_bytes_whatever_the_key_order() -> None:
    assert dumps({"b": 1, "a": [0.1 + 0.2]}) == dumps({"a": [0.30000000000000004], "b": 1})
    assert dumps({"x": 6.32000000000005}) == '{\n  "x": 6.32\n}\n'


def test_missing_values_must_be_null() -> None:
    with pytest.raises(ValueError, match="use null"):
        dumps_line({"x": float("nan")})
    with pytest.raises(ValueError):
        dumps_line({"x": float("inf")})


def test_new_output_dir_leaves_nothing_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "out"
    with pytest.raises(RuntimeError), new_output_dir(target) as staging:
        (staging / "half.json").write_text("{")
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_new_output_dir_refuses_existing(tmp_path: Path) -> None:
    with new_output_dir(tmp_path / "out") as staging:
        atomic_write_text(staging / "a.txt", "x")
    assert (tmp_path / "out" / "a.txt").read_text() == "x"
    with pytest.raises(InputError, match="never overwritten"), new_output_dir(tmp_path / "out"):
        pass


def test_atomic_files_get_ordinary_permissions(tmp_path: Path) -> None:
    import os

    mask = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "a.txt", "x")
    finally:
        os.umask(mask)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644   # 0666 & ~022


def test_atomic_files_are_synced_unless_asked_not_to(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    atomic_write_text(tmp_path / "kept.json", "{}")
    assert len(synced) == 1
    atomic_write_text(tmp_path / "cache.json", "[]", durable=False)
    assert len(synced) == 1
    assert (tmp_path / "kept.json").read_text() == "{}"
    assert (tmp_path / "cache.json").read_text() == "[]"


def test_creating_an_output_dir_someone_else_created_is_one_input_error(
        tmp_path: Path) -> None:
    made = create_new_output_dir(tmp_path / "a" / "run")
    assert made.is_dir() and list(made.iterdir()) == []
    (made / "theirs.txt").write_text("kept")
    with pytest.raises(InputError) as refused:
        create_new_output_dir(made)
    assert str(refused.value) == (f"{made}: output already exists: another run created it "
                                  "first; outputs are never shared or overwritten, choose a "
                                  "new path")
    assert (made / "theirs.txt").read_text() == "kept"
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="is not a directory"):
        create_new_output_dir(tmp_path / "file" / "run")
