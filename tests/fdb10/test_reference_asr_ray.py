"""``fdb10 reference-asr --executor ray``: real Whisper on a real local Ray cluster writes
the same bytes as ``--jobs 1`` and ``--jobs 2`` on this machine, whatever the thread
variables say (Ray sets ``OMP_NUM_THREADS=1`` in its workers unless it is set)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from speecheval.cli import main

from .test_reference_asr import (
    KERNEL_ENV,
    THREAD_SENSITIVE,
    WHISPER_SAMPLES,
    needs_haswell_kernel,
    tree_files,
    untranscribed,
)


def test_the_same_transcripts_on_ray(ray_cluster: str, tmp_path: Path) -> None:
    runs = {"jobs1": ["--jobs", "1"], "jobs2": ["--jobs", "2"], "ray": ["--executor", "ray"]}
    trees = {}
    for name, options in runs.items():
        trees[name], _ = untranscribed(tmp_path / name, WHISPER_SAMPLES)
        assert main(["fdb10", "reference-asr", "--tree", str(trees[name]), *options]) == 0
    written = sorted(p.relative_to(trees["jobs1"]).as_posix()
                     for p in trees["jobs1"].glob("*/*/output.json"))
    assert len(written) == len(WHISPER_SAMPLES)
    for name in ("asr.json", *written):
        assert (trees["jobs1"] / name).read_bytes() == (trees["jobs2"] / name).read_bytes() \
            == (trees["ray"] / name).read_bytes(), name


# A driver with its own private cluster on loopback, so that the cluster's workers start
# with the driver's environment (the kernel forced, the thread variable as given).
DRIVER = """
import json, sys
import ray
ray.init(num_cpus=2, object_store_memory=80_000_000, include_dashboard=False,
         _node_ip_address="127.0.0.1", log_to_driver=False, logging_level="WARNING")
from speecheval.cli import main
codes = [main(["fdb10", "reference-asr", "--tree", tree, *options])
         for tree, options in json.loads(sys.argv[1])]
ray.shutdown()
print(json.dumps(codes))
"""


@needs_haswell_kernel
@pytest.mark.parametrize("omp_threads", [None, "3"])
def test_ray_workers_and_this_process_round_alike(omp_threads: str | None,
                                                  tmp_path: Path) -> None:
    """The driver's BLAS on this machine's thread count (or 3), Ray's workers on 1 (or
    3): the same bytes (on two threads the sensitive word would move by 20 ms)."""
    pytest.importorskip("ray", reason="ray is not installed (pip install 'speecheval[ray]')")
    here, _ = untranscribed(tmp_path / "here", THREAD_SENSITIVE)
    there, _ = untranscribed(tmp_path / "ray", THREAD_SENSITIVE)
    env = {**os.environ, **KERNEL_ENV, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("OMP_NUM_THREADS", None)
    if omp_threads is not None:
        env["OMP_NUM_THREADS"] = omp_threads
    runs = [(str(here), ["--jobs", "1"]), (str(there), ["--executor", "ray"])]
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(runs)], env=env,
                          capture_output=True, text=True, timeout=280)
    assert done.returncode == 0 and json.loads(done.stdout.splitlines()[-1]) == [0, 0], \
        done.stderr[-2000:]
    assert tree_files(here) == tree_files(there)
