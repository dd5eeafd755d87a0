"""A worker process logs at its driver's ``-v``/``-q`` level: a spawned worker starts a
fresh interpreter (where the level would be the default) and a Ray worker serves tasks of
any driver, so the executor hands each the level the run started under."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from speecheval.core import log
from speecheval.core.executor import LocalExecutor, _ray_item
from speecheval.core.hashing import sha256_bytes, sha256_file


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    paths = [tmp_path / "a.bin", tmp_path / "b.bin"]
    for index, path in enumerate(paths):
        path.write_bytes(bytes([index]) * 100)
    return paths


@pytest.fixture
def level() -> object:
    yield
    log.set_level(log.NORMAL)


@pytest.mark.parametrize("context", ["spawn", "fork"])
def test_jobs_2_workers_log_debug_lines_under_verbose(
        files: list[Path], level: object, context: str,
        capfd: pytest.CaptureFixture[str]) -> None:
    log.set_level(log.VERBOSE)
    digests = [result.value for result in
               LocalExecutor(2, mp_context=context).map(sha256_file, files)]
    assert digests == [sha256_bytes(bytes([i]) * 100) for i in range(2)]
    err = capfd.readouterr().err
    # sha256_file's own debug line, written by the worker that hashed each file (the
    # driver hashes nothing)
    lines = sorted(line for line in err.splitlines() if line.startswith("read "))
    assert lines == [f"read {path} (sha256 {digest})"
                     for path, digest in zip(files, digests, strict=True)], err


@pytest.mark.parametrize("context", ["spawn", "fork"])
def test_jobs_2_workers_say_nothing_under_quiet(files: list[Path], level: object,
                                                context: str,
                                                capfd: pytest.CaptureFixture[str]) -> None:
    log.set_level(log.QUIET)
    LocalExecutor(2, mp_context=context).map(sha256_file, files)
    assert capfd.readouterr().err == ""


def test_a_spawned_worker_at_the_default_level_logs_no_debug(
        files: list[Path], level: object, capfd: pytest.CaptureFixture[str]) -> None:
    # the default (INFO): sha256_file's debug line is not shown, in a worker as here
    LocalExecutor(2, mp_context="spawn").map(sha256_file, files)
    assert not re.search(r"^read ", capfd.readouterr().err, re.MULTILINE)


def test_a_ray_task_takes_the_level_its_driver_sent(files: list[Path], level: object,
                                                    capfd: pytest.CaptureFixture[str]) -> None:
    # _ray_item is what a Ray worker runs for each task; the worker keeps its process
    # between drivers, so each task sets the level its payload carries
    log.set_level(log.QUIET)
    digest = _ray_item("run", (sha256_file, None, log.VERBOSE), files[0])
    assert log.current_level() == log.VERBOSE
    assert capfd.readouterr().err == f"read {files[0]} (sha256 {digest})\n"
    _ray_item("run", (sha256_file, None, log.QUIET), files[1])
    assert log.current_level() == log.QUIET and capfd.readouterr().err == ""
