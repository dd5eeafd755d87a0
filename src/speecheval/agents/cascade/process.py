"""The cascade agent in a child process, for a command that records it (``fdb10 demo``)
and for tests: its own interpreter (and lock), as a real server has, on a free port.

The child is ``speecheval agents serve cascade --port 0`` (with this process's ``-q`` or
``-v``); it prints its URL once the model is loaded and it listens. The block gets that
URL; when the block ends, however it ends, the child is stopped (SIGTERM, then SIGKILL if
it does not go).
"""

from __future__ import annotations

import select
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from ...core.errors import SystemUnderTestError
from ...core.log import level_flags
from .options import CascadeSettings

STARTUP_TIMEOUT_S = 120.0  # loading Whisper on a busy 2-core machine takes seconds
STOP_TIMEOUT_S = 10.0


@contextmanager
def cascade_agent_process(protocol: str, options: Mapping[str, str],
                          startup_timeout_s: float = STARTUP_TIMEOUT_S) -> Iterator[str]:
    """Serve the cascade agent in a child process for the block; yield its URL.

    Bad options are refused here (InputError, exit 2) before a process starts; a child
    that exits or stays silent instead of printing its URL is a SystemUnderTestError.
    """
    CascadeSettings.parse(protocol, options)
    pairs = [arg for key, value in options.items() for arg in ("-o", f"{key}={value}")]
    command = [sys.executable, "-m", "speecheval", "agents", "serve", "cascade",
               "--protocol", protocol, "--port", "0", *pairs, *level_flags()]
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
            raise SystemUnderTestError(f"the cascade agent did not start: it {state}")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
