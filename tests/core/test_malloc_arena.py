"""The one-arena setting of glibc's malloc that the threaded scorers ask for."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from speecheval.core.malloc_arena import M_ARENA_MAX, share_one_arena

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not GLIBC, reason="mallopt's M_ARENA_MAX is glibc's")
def test_glibc_takes_the_setting() -> None:
    # mallopt returns 1 on success and 0 for a parameter or value it refuses (M_ARENA_MAX is
    # -8 in glibc's malloc.h); in a fresh process, so this test's own arenas are untouched
    code = "from speecheval.core.malloc_arena import share_one_arena; print(share_one_arena())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "True"
    assert M_ARENA_MAX == -8


def test_without_mallopt_nothing_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    class NoMallopt:
        def __init__(self, name: object) -> None:
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoMallopt)
    assert share_one_arena() is False
