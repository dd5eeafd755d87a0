"""Work items for the executor tests: plain module-level functions, picklable by reference
for the local pool and sent by value to Ray workers (which cannot import tests/)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

TAG = "SPEECHEVAL_EXECUTOR_TEST_TAG"


def square(x: int) -> int:
    return x * x


def fail_on_three(x: int) -> int:
    if x == 3:
        raise ValueError(f"item {x} is bad")
    return x


def prepare(tag: str) -> None:
    """A worker setup: remembered by the process (in its environment, which a function
    sent by value to Ray shares with the process), read back by :func:`tagged`."""
    os.environ[TAG] = tag


def tagged(x: int) -> str:
    return f"{os.environ.get(TAG)}:{x}"


def die_once(item: tuple[str, int]) -> int:
    """Kill this worker process the first time item 2 runs (the marker file remembers)."""
    marker, x = Path(item[0]), item[1]
    if x == 2 and not marker.exists():
        marker.write_text("killed once\n")
        os.kill(os.getpid(), signal.SIGKILL)
    return x * 10


def die_always_on_two(x: int) -> int:
    """Kill this worker process whenever item 2 runs."""
    if x == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return x * 10


def exit_137_on_two(x: int) -> int:
    """End this worker process with exit code 137 whenever item 2 runs."""
    if x == 2:
        os._exit(137)
    return x * 10


def die_in_setup() -> None:
    """A worker setup that kills its process before any item can start."""
    os.kill(os.getpid(), signal.SIGKILL)


def die_once_on_zero_others_wait(item: tuple[str, str, int]) -> int:
    """Item 0 kills its worker the first time (the marker file remembers); every other
    item waits until the ``go`` file exists (at most 30 s), so none finishes before the
    driver creates it."""
    import time

    marker, go, x = Path(item[0]), Path(item[1]), item[2]
    if x == 0:
        if not marker.exists():
            marker.write_text("killed once\n")
            os.kill(os.getpid(), signal.SIGKILL)
        return 0
    deadline = time.monotonic() + 30.0
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return x


MARK = "as imported"
"""Changed by a test in the driver: a forked worker sees the change, a spawned one not."""


def mark(x: int) -> str:
    return f"{MARK}:{x}"


def blas_threads(x: int) -> int:
    """How many threads numpy's BLAS would run while this item runs."""
    from speecheval.core.numeric_env import numeric_environment

    return int(numeric_environment()["blas"][0]["threads"])


def sigterm_ends_the_worker(x: int) -> bool:
    """Whether SIGTERM would kill the programs this worker owns and then end it by the
    signal, rather than raise the program's unwinding exception in the item."""
    from speecheval.core.child_groups import end_by_sigterm

    return signal.getsignal(signal.SIGTERM) is end_by_sigterm
