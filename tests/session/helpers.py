"""Helpers shared by the session tests: scenario files and the voicebench examples."""

from __future__ import annotations

import asyncio
import shutil
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from speecheval.agents.local import LocalAgentServer


def write_scenario(directory: Path, body: str, name: str = "scenario.yaml") -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(body).lstrip(), encoding="utf-8")
    return path


def voicebench_examples() -> Path:
    """The example scenarios shipped inside the voicebench 0.2.0 wheel (test-only dep)."""
    voicebench = pytest.importorskip("voicebench")
    folder = Path(voicebench.__file__).parent / "examples"
    if not folder.is_dir():
        pytest.skip("voicebench is installed without its examples")
    return folder


def require_espeak() -> None:
    """Skip a test whose scenario speaks with espeak-ng when it is not installed."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")


@contextmanager
def serving(options: dict[str, str] | None = None, kind: str = "turn",
            protocol: str = "pcm-websocket") -> Iterator[str]:
    """A local agent (default: turn-taking, pcm-websocket) on a background thread, so
    that the CLI's own event loop can talk to it; yields its URL."""
    ready = threading.Event()
    stop: asyncio.Event | None = None
    url: list[str] = []
    loop = asyncio.new_event_loop()

    async def serve() -> None:
        nonlocal stop
        stop = asyncio.Event()
        async with LocalAgentServer(kind, protocol, options) as agent:
            url.append(agent.url)
            ready.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(10), "local agent did not start"
    try:
        yield url[0]
    finally:
        assert stop is not None
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        loop.close()
