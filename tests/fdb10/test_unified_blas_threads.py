"""``unified-score`` loads numpy with one OpenBLAS thread, unless the user chose a number
or numpy is already loaded (then the setting could not take effect and is left alone)."""

from __future__ import annotations

import os
import sys

import numpy  # noqa: F401  (loaded: the last test needs it; the first two remove it)
import pytest

from speecheval.fdb.v10.cli import single_threaded_blas

VARIABLE = "OPENBLAS_NUM_THREADS"


def test_one_thread_when_numpy_is_not_loaded_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)
    monkeypatch.delitem(sys.modules, "numpy")  # as in a fresh `speecheval` process
    single_threaded_blas()
    assert os.environ[VARIABLE] == "1"


def test_the_users_setting_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VARIABLE, "4")
    monkeypatch.delitem(sys.modules, "numpy")
    single_threaded_blas()
    assert os.environ[VARIABLE] == "4"


def test_nothing_is_set_once_numpy_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)
    single_threaded_blas()  # this test process has loaded numpy
    assert VARIABLE not in os.environ
