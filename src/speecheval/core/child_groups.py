"""The process groups of the programs a command is running, so none outlives the command.

Why: a program run as a system (``transcripts run``'s ``command`` adapter) gets a session
of its own, so that a time-out can kill everything it started and the terminal's Ctrl-C
does not reach it. That same separation means nothing else stops it: when the command is
interrupted in the process that waits for it, the wait kills its group on the way out;
when a pool stops a worker with SIGTERM, the worker kills the groups it owns here first
(:func:`end_by_sigterm`) and then ends by the signal, as the pool expects.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from types import FrameType

_OWNED: set[int] = set()


@contextlib.contextmanager
def owned_group(pgid: int) -> Iterator[None]:
    """While the block runs, ``pgid`` is killed if this process is stopped by SIGTERM."""
    _OWNED.add(pgid)
    try:
        yield
    finally:
        _OWNED.discard(pgid)


def kill_group(pgid: int) -> None:
    """SIGKILL every process of the group; a group that is gone already is fine."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


def end_by_sigterm(signum: int, frame: FrameType | None) -> None:
    """A worker's SIGTERM handler: kill the owned groups, then end by SIGTERM itself."""
    for pgid in list(_OWNED):
        kill_group(pgid)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
