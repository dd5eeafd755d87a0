"""A speecheval agent server in a child process, for a command that records it (the
``fdb10`` and ``fdb15`` demos) and for tests: its own interpreter (and lock), as a real
server has, on a free port.

The child is a ``speecheval`` command that prints its URL on standard output once it
listens. The block gets that URL; when the block ends, however it ends, the child is
stopped (SIGTERM, then SIGKILL if it does not go).
"""

from __future__ import annotations

import select
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ..core.errors import SystemUnderTestError
from ..core.log import level_flags

STOP_TIMEOUT_S = 10.0


@contextmanager
def serving_child(args: Sequence[str], what: str, startup_timeout_s: float) -> Iterator[str]:
    """Run ``speecheval ARGS`` (with this process's ``-q`` or ``-v``) for the block and
    yield the URL it prints; a child that exits or stays silent instead is a
    SystemUnderTestError naming ``what``."""
    command = [sys.executable, "-m", "speecheval", *args, *level_flags()]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], startup_timeout_s)
        url = process.stdout.readline().strip() if ready else ""
        if not url.startswith("ws://"):
            code = process.poll()
            state = (f"exited with code {code}" if code is not None
                     else f"printed {url!r}" if url else
                     f"printed no URL within {startup_timeout_s:.0f} s")
            raise SystemUnderTestError(f"{what} did not start: it {state}")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
