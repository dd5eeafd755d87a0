"""core.short_slice: the sending thread's slice is shortened, its niceness kept."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from speecheval.core.short_slice import SLICE_NS, request_short_slice

SCHED = Path("/proc/thread-self/sched")


def _slice_ns() -> int | None:
    """This thread's ``se.slice`` as the kernel reports it (None where it does not)."""
    for line in SCHED.read_text().splitlines():
        if line.startswith("se.slice"):
            return int(line.split(":")[1])
    return None


@pytest.mark.skipif(not SCHED.exists() or _slice_ns() is None,
                    reason="the kernel reports no per-thread scheduler slice")
def test_the_thread_gets_the_short_slice_and_keeps_its_niceness() -> None:
    seen: dict[str, object] = {}

    def thread() -> None:   # a thread of its own, so the test process keeps its slice
        os.setpriority(os.PRIO_PROCESS, 0, os.getpriority(os.PRIO_PROCESS, 0) + 3)
        nice = os.getpriority(os.PRIO_PROCESS, 0)
        seen["before"] = _slice_ns()
        seen["outcome"] = request_short_slice()
        seen["after"], seen["nice"] = _slice_ns(), (nice, os.getpriority(os.PRIO_PROCESS, 0))

    worker = threading.Thread(target=thread)
    worker.start()
    worker.join()
    assert seen["outcome"] == "set"
    assert seen["after"] == SLICE_NS == 500_000 and seen["before"] != SLICE_NS
    nice_before, nice_after = seen["nice"]  # type: ignore[misc]
    assert nice_after == nice_before   # a privileged caller is not un-niced either
