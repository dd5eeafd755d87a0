"""The one-arena setting of glibc's malloc that the threaded scorers ask for."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from speecheval.core.malloc_arena import keep_freed_memory, share_one_arena

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

# In a fresh process (this test's own threads have arenas already): optionally ask for
# one arena, let a second thread allocate, and have glibc print its arenas (malloc_stats
# writes one "Arena N:" block per arena to stderr).
PROBE = """
import ctypes, sys, threading
if sys.argv[1] == "one":
    from speecheval.core.malloc_arena import share_one_arena
    print(share_one_arena())
worker = threading.Thread(target=lambda: [bytes(65) for _ in range(20000)])
worker.start()
worker.join()
ctypes.CDLL(None).malloc_stats()
"""


def arenas(mode: str) -> tuple[str, int]:
    done = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True,
                          text=True, check=True)
    return done.stdout.strip(), sum(line.startswith("Arena ") for line in
                                    done.stderr.splitlines())


@pytest.mark.skipif(not GLIBC, reason="mallopt's M_ARENA_MAX and malloc_stats are glibc's")
def test_a_second_thread_allocates_from_the_main_arena() -> None:
    # without the setting the second thread gets an arena of its own (2 in all); with it,
    # every thread is served from the main one (1), and mallopt reported success
    assert arenas("default") == ("", 2)
    assert arenas("one") == ("True", 1)


def test_without_mallopt_nothing_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    class NoMallopt:
        def __init__(self, name: object) -> None:
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoMallopt)
    assert share_one_arena() is False


# In a fresh process: optionally keep freed memory, then make and free a 30 MB block three
# times (filled, so every page is touched) and print the minor page faults of the last two.
FAULTS = """
import resource, sys
if sys.argv[1] == "kept":
    from speecheval.core.malloc_arena import keep_freed_memory
    assert keep_freed_memory()
block = b"x" * (30 << 20)
del block
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(2):
    block = b"x" * (30 << 20)
    del block
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def faults(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", FAULTS, mode], capture_output=True,
                          text=True, check=True)
    return int(done.stdout)


@pytest.mark.skipif(not GLIBC, reason="mallopt's thresholds are glibc's")
def test_freed_memory_is_reused_without_page_faults() -> None:
    # by default the first block is a mapping of its own (above the 128 kB threshold),
    # handed back when freed, and the second one grows the heap: its 7,680 pages are
    # faulted in (7,678 measured: the heap had a little room already); kept in the heap
    # from the first, the second and third reuse its pages
    assert faults("default") >= (30 << 20) // 4096 // 2
    assert faults("kept") < 1000


def test_without_mallopt_no_threshold_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    class NoMallopt:
        def __init__(self, name: object) -> None:
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoMallopt)
    assert keep_freed_memory() is False
