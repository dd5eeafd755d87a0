"""A local agent in a child process (``speecheval session mock-server --port 0``), for a
command that records it (``fdb15 demo``): its own interpreter, as a real server has."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from ..child_process import serving_child
from .options import parse_options

STARTUP_TIMEOUT_S = 60.0  # espeak-ng speaks the replies before the agent listens


@contextmanager
def local_agent_process(kind: str, protocol: str, options: Mapping[str, str],
                        startup_timeout_s: float = STARTUP_TIMEOUT_S) -> Iterator[str]:
    """Serve the local agent ``kind`` over ``protocol`` in a child process for the block;
    yield its URL. Bad options are refused here (InputError, exit 2) first."""
    parse_options(f"local agent ({kind}, {protocol})", options)
    pairs = [arg for key, value in options.items() for arg in ("-o", f"{key}={value}")]
    with serving_child(["session", "mock-server", "--kind", kind, "--protocol", protocol,
                        "--port", "0", *pairs], f"the local {kind} agent",
                       startup_timeout_s) as url:
        yield url
