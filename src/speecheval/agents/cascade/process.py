"""The cascade agent in a child process, for a command that records it (``fdb10 demo``)
and for tests: ``speecheval agents serve cascade --port 0``, which prints its URL once
the model is loaded and it listens (:mod:`speecheval.agents.child_process`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from ..child_process import serving_child
from .options import CascadeSettings

STARTUP_TIMEOUT_S = 120.0  # loading Whisper on a busy 2-core machine takes seconds


@contextmanager
def cascade_agent_process(protocol: str, options: Mapping[str, str],
                          startup_timeout_s: float = STARTUP_TIMEOUT_S) -> Iterator[str]:
    """Serve the cascade agent in a child process for the block; yield its URL.

    Bad options are refused here (InputError, exit 2) before a process starts; a child
    that exits or stays silent instead of printing its URL is a SystemUnderTestError.
    """
    CascadeSettings.parse(protocol, options)
    pairs = [arg for key, value in options.items() for arg in ("-o", f"{key}={value}")]
    with serving_child(["agents", "serve", "cascade", "--protocol", protocol, "--port", "0",
                        *pairs], "the cascade agent", startup_timeout_s) as url:
        yield url
