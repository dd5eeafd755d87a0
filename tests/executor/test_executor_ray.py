"""The ray executor on a real local Ray cluster (loopback, 2 CPUs), one per module.

The seam's contract is checked as for the local executor (order, errors kept, a worker
killed once is retried, one that always dies is recorded failed with the same reason as
locally); then each wired command runs with ``--executor ray`` and its output bytes are
compared with ``--jobs 1`` and ``--jobs 2`` on this machine. Skipped only where Ray cannot
be imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path

import executor_items as items
import pytest

from speecheval.cli import main
from speecheval.core.errors import WorkerDied
from speecheval.core.executor import Cancelled, LocalExecutor, RayExecutor

pytest.importorskip("ray", reason="ray is not installed (pip install 'speecheval[ray]')")

REPO = Path(__file__).resolve().parents[2]
TRANSCRIPTS_EXAMPLE = REPO / "examples" / "transcripts" / "manifest.yaml"


@pytest.fixture(scope="module")
def cluster(ray_cluster: str) -> str:
    """The session's Ray cluster, with this module's work items sent by value (Ray
    workers cannot import tests/)."""
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(items)
    return ray_cluster


def test_results_in_item_order_with_errors_kept(cluster: str) -> None:
    results = RayExecutor().map(items.fail_on_three, [5, 4, 3, 2, 1])
    assert [r.value for r in results] == [5, 4, None, 2, 1]
    assert isinstance(results[2].error, ValueError) and str(results[2].error) == "item 3 is bad"


def test_setup_runs_once_in_each_worker(cluster: str) -> None:
    results = RayExecutor().map(items.tagged, [1, 2, 3], setup=partial(items.prepare, "w"))
    assert [r.get() for r in results] == ["w:1", "w:2", "w:3"]


def test_a_worker_killed_mid_item_is_retried_then_succeeds(cluster: str,
                                                           tmp_path: Path) -> None:
    marker = tmp_path / "killed"
    results = RayExecutor().map(items.die_once, [(str(marker), x) for x in range(5)])
    assert marker.read_text() == "killed once\n"  # item 2's first worker did die
    assert [r.get() for r in results] == [0, 10, 20, 30, 40]


def test_a_worker_that_always_dies_is_recorded_failed_as_locally(cluster: str) -> None:
    on_ray = RayExecutor(max_attempts=2).map(items.die_always_on_two, list(range(4)))
    here = LocalExecutor(2, max_attempts=2).map(items.die_always_on_two, list(range(4)))
    for results in (on_ray, here):
        assert [r.value for r in results] == [0, 10, None, 30]
        assert isinstance(results[2].error, WorkerDied)
    assert str(on_ray[2].error) == ("the worker process died while running this item "
                                    "(crashed or was killed, exit status not reported by "
                                    "Ray; 2 attempts)")
    assert str(here[2].error) == ("the worker process died while running this item "
                                  "(killed by SIGKILL; 2 attempts)")


def test_cancel_leaves_the_rest_cancelled(cluster: str) -> None:
    cancel = threading.Event()
    results = RayExecutor().map(items.square, list(range(30)), cancel=cancel,
                                advance=lambda units=1: cancel.set())
    assert any(r.error is None for r in results)
    assert any(isinstance(r.error, Cancelled) for r in results)
    assert all(r.value == i * i for i, r in enumerate(results) if r.error is None)


def _same_files(*dirs: Path) -> None:
    """Every directory holds the same file names with the same bytes."""
    first, *others = dirs
    names = sorted(str(p.relative_to(first)) for p in first.rglob("*") if p.is_file())
    assert names
    for other in others:
        assert names == sorted(str(p.relative_to(other)) for p in other.rglob("*")
                               if p.is_file())
        for name in names:
            assert (first / name).read_bytes() == (other / name).read_bytes(), name


def test_transcripts_score_same_bytes_on_ray(cluster: str, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    runs = {"jobs1": ["--jobs", "1"], "jobs2": ["--jobs", "2"], "ray": ["--executor", "ray"]}
    for name, options in runs.items():
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)  # the same --out, recorded in run.json
        assert main(["transcripts", "score", "--manifest", str(TRANSCRIPTS_EXAMPLE),
                     "--out", "run", *options]) == 0
    # a separate process joining the cluster by its address, as on a real cluster
    (tmp_path / "address").mkdir()
    # Ray turns 127.0.0.1 into the machine's address unless told this is a one-machine
    # cluster; the fixture's cluster listens on loopback only
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path),
           "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "speecheval", "transcripts", "score", "--manifest",
         str(TRANSCRIPTS_EXAMPLE), "--out", "run", "--executor", "ray", "--ray-address",
         cluster], cwd=tmp_path / "address", env=env, capture_output=True, text=True,
        timeout=120)
    assert done.returncode == 0, done.stderr
    _same_files(*(tmp_path / name / "run" for name in (*runs, "address")))


def test_an_error_named_in_stop_on_stops_the_run(cluster: str) -> None:
    with pytest.raises(ValueError, match="item 3 is bad"):
        RayExecutor().map(items.fail_on_three, list(range(3, 40)), stop_on=(ValueError,))


class _OomTask:
    """``ray.remote(fn).options(...)``: each item's task ref is the item itself."""

    def remote(self, run_id: str, payload: object, item: int) -> int:
        return item


class _OomRay:
    """Just enough of the ``ray`` module for a run whose task for item 2 was killed by
    Ray's memory monitor every time it was tried (``ray.get`` raises OutOfMemoryError
    then, not WorkerCrashedError); no cluster is started."""

    def remote(self, fn: object) -> _OomRay:
        return self

    def options(self, **_: object) -> _OomTask:
        return _OomTask()

    def put(self, value: object) -> object:
        return value

    def wait(self, refs: list[int], num_returns: int, timeout: float
             ) -> tuple[list[int], list[int]]:
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref: int) -> int:
        from ray.exceptions import OutOfMemoryError

        if ref == 2:
            raise OutOfMemoryError("Task was killed due to the node running low on memory.")
        return ref * 10

    def cancel(self, ref: int) -> None:
        """Nothing runs."""


def test_a_task_killed_for_memory_is_that_items_worker_death() -> None:
    """An item whose worker Ray's memory monitor killed (after Ray's retries) is that
    item's WorkerDied, as a killed worker is locally; the other items go on. Before, the
    OutOfMemoryError escaped ``results`` and stopped the whole run with a traceback."""
    from speecheval.core.executor import _RayRun

    run: _RayRun[int] = _RayRun(_OomRay(), False, items.square, [0, 1, 2, 3], None, 3, None,
                                ())
    results = list(run.results())
    assert [r.value for r in results] == [0, 10, None, 30]
    assert isinstance(results[2].error, WorkerDied)
    assert str(results[2].error) == ("the worker process died while running this item "
                                     "(killed by Ray's memory monitor; 3 attempts)")
