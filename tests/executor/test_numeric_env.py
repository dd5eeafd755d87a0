"""One thread in every numeric pool while work runs, and the record of what computed.

numpy's BLAS is the pool checked: every numpy wheel ships one, and the product that moved
Whisper's word times is numpy's. Whether the pin makes the bytes the same is checked end
to end in tests/fdb10/test_reference_asr.py (and against Ray in ..._ray.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import executor_items as items
import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from speecheval.core.executor import LocalExecutor
from speecheval.core.numeric_env import (
    KERNEL_FLAGS,
    THREAD_VARIABLES,
    cpu_flags,
    numeric_environment,
    pinned_threads,
)


def numpy_blas_threads() -> int:
    return int(numeric_environment()["blas"][0]["threads"])


def test_the_pin_sets_one_thread_and_puts_everything_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert np.dot(np.ones(4), np.ones(4)) == 4  # numpy's BLAS is loaded before the pin
    with threadpool_limits(limits=2, user_api="blas"):  # as on a 2-core machine
        with pinned_threads():
            assert numpy_blas_threads() == 1
            assert {os.environ[name] for name in THREAD_VARIABLES} == {"1"}
        assert numpy_blas_threads() == 2
    assert os.environ["OMP_NUM_THREADS"] == "3"
    assert "OPENBLAS_NUM_THREADS" not in os.environ


def test_a_pin_inside_a_pin_sets_nothing_again(monkeypatch: pytest.MonkeyPatch) -> None:
    import threadpoolctl

    calls: list[int] = []
    real = threadpoolctl.threadpool_limits

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(threadpoolctl, "threadpool_limits", counted)
    with pinned_threads():
        with pinned_threads(), pinned_threads():
            assert numpy_blas_threads() == 1
        assert numpy_blas_threads() == 1  # the inner blocks undid nothing
    assert len(calls) == 1  # only the outer block set the pools


@pytest.mark.parametrize("jobs", [1, 2])
def test_items_inside_a_pinned_command_run_with_one_blas_thread(jobs: int) -> None:
    # the command's pin (cli.main), which forked workers inherit: the items' own pins
    # are then no-ops, and every item still computes with one thread
    with pinned_threads():
        results = LocalExecutor(jobs).map(items.blas_threads, [1, 2, 3])
    assert [r.get() for r in results] == [1, 1, 1]


@pytest.mark.parametrize("jobs", [1, 2])
def test_items_run_with_one_blas_thread_here_and_in_workers(jobs: int) -> None:
    # with two BLAS threads in this process, which forked workers inherit
    with threadpool_limits(limits=2, user_api="blas"):
        results = LocalExecutor(jobs).map(items.blas_threads, [1, 2, 3])
    assert [r.get() for r in results] == [1, 1, 1]


def test_the_record_names_numpys_blas_without_paths() -> None:
    # the numpy wheel's own OpenBLAS lies in numpy.libs (scipy's, in scipy.libs, is not it)
    [pool] = [info for info in threadpool_info() if info["user_api"] == "blas"
              and Path(info["filepath"]).parent.name == "numpy.libs"]
    with pinned_threads():
        record = numeric_environment()
    assert record["blas"] == [{"library": pool["internal_api"], "version": pool["version"],
                               "kernel": pool["architecture"],
                               "threading": pool["threading_layer"], "threads": 1}]
    assert record["cpu_flags"] == sorted(cpu_flags() & KERNEL_FLAGS)
    assert "/" not in json.dumps(record)  # no path


def test_cpu_flags_keep_those_that_choose_kernels(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse4_2 avx2 fma avx512f ht\n"
                       "processor\t: 1\nflags\t\t: fpu\n")
    assert cpu_flags(cpuinfo) == {"fpu", "sse4_2", "avx2", "fma", "avx512f", "ht"}
    assert cpu_flags(tmp_path / "absent") == set()
    arm = tmp_path / "arm"
    arm.write_text("processor\t: 0\nFeatures\t: fp asimd sve\n")
    assert cpu_flags(arm) == {"fp", "asimd", "sve"}
