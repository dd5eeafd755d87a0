"""One thread in every numeric thread pool, and a record of the numeric environment.

Why: a BLAS library splits a matrix product over its threads, and with some kernels the
split changes how the sums are rounded. faster-whisper's log-mel features are such a
product, so a word time could move by a frame (4.42 s against 4.44 s) between a process
whose OpenBLAS ran two threads and a Ray worker, where Ray sets ``OMP_NUM_THREADS=1``.
The executor already runs items in parallel; inside an item every pool (BLAS, OpenMP)
runs :data:`PINNED_THREADS` thread, in this process, a local worker and a Ray worker
alike, so they compute the same bytes.

:func:`pinned_threads` sets the pools already loaded (through threadpoolctl) and the
thread variables that a library loaded later reads when it starts.
:func:`numeric_environment` says what computed the numbers: numpy's BLAS library, its
version, kernel and threads, and the CPU's instruction-set extensions that choose kernels (an
AVX-512 machine and an AVX2 one may round differently even on one thread). It is
provenance: written beside the numbers (``numeric`` in provenance records and asr.json),
never into them.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import platform
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PINNED_THREADS = 1
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "BLIS_NUM_THREADS")
"""What BLAS and OpenMP libraries read, when they are loaded, for their thread count."""

KERNEL_FLAGS = frozenset({
    "sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512dq",
    "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile",
    "amx_int8", "amx_bf16",  # x86-64
    "asimd", "asimdhp", "asimddp", "sve", "sve2", "bf16", "i8mm",  # arm64
})
"""CPU extensions that numpy, OpenBLAS, CTranslate2 and onnxruntime pick kernels by."""


_pinned_depth = 0
"""How many :func:`pinned_threads` blocks this process is inside (a forked worker inherits
the count with the pinned pools and variables)."""


@contextmanager
def pinned_threads() -> Iterator[None]:
    """Run the block with :data:`PINNED_THREADS` thread in every numeric pool; the pools
    and the variables are as they were afterwards.

    Inside a block already pinned (the command's own, which a forked worker inherits too)
    it does nothing: the pools are set, and a library loaded since reads the variables.
    So an executor item pays for the pin only where nothing pinned it before, on Ray
    (a quarter of a millisecond an item, which a 727-file tree would otherwise pay 727
    times)."""
    global _pinned_depth
    if _pinned_depth:
        _pinned_depth += 1
        try:
            yield
        finally:
            _pinned_depth -= 1
        return
    saved = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    os.environ.update({name: str(PINNED_THREADS) for name in THREAD_VARIABLES})
    _pinned_depth += 1
    try:
        if not _native_modules_loaded():  # no pool yet: each reads the variables
            yield
            return
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=PINNED_THREADS):
            yield
    finally:
        _pinned_depth -= 1
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _native_modules_loaded() -> bool:
    """Whether an extension module from outside the standard library is loaded: only
    such a module (numpy, torch, onnxruntime) brings a BLAS or OpenMP pool.

    When a command starts none is, so no pool exists for threadpoolctl to set, and each
    one loaded later starts with the thread variables :func:`pinned_threads` has set:
    the command skips threadpoolctl's import and its scan of the loaded libraries (some
    8 ms, with ctypes, of a help page's 70)."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if (isinstance(path, str) and path.endswith(suffixes)
                and name.partition(".")[0] not in sys.stdlib_module_names):
            return True
    return False


def numeric_environment() -> dict[str, Any]:
    """numpy's BLAS (library, version, kernel, threading, threads now) and the CPU's
    kernel-choosing extensions; no paths, so two machines alike give the same record.

    Only numpy's BLAS is named, not every pool loaded: which other libraries a process
    has loaded depends on where the items ran (a ``--jobs 1`` driver loads onnxruntime,
    a ``--jobs 2`` one leaves it to its workers), and the record must not."""
    import numpy
    from threadpoolctl import threadpool_info

    blas = [info for info in threadpool_info() if info["user_api"] == "blas"]
    numpy_dir = Path(numpy.__file__).parent
    # a wheel's own BLAS lies in numpy.libs beside the package; a numpy linked to the
    # system's BLAS has none of its own, and every BLAS loaded is named instead
    owned = [info for info in blas if Path(info["filepath"]).parent.name == "numpy.libs"
             or Path(info["filepath"]).is_relative_to(numpy_dir)]
    pools = {json.dumps(pool, sort_keys=True): pool for pool in (
        {"library": info["internal_api"], "version": info.get("version"),
         "kernel": info.get("architecture"), "threading": info.get("threading_layer"),
         "threads": info["num_threads"]} for info in owned or blas)}
    return {
        "machine": platform.machine(),
        "cpu_flags": sorted(cpu_flags() & KERNEL_FLAGS),
        "blas": [pools[key] for key in sorted(pools)],
    }


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    """The CPU's feature flags as Linux lists them (x86 ``flags``, arm64 ``Features``);
    empty where there is no such file."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return set(value.split())
    return set()
