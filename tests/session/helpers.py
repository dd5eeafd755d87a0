"""Helpers shared by the session tests: scenario files and the voicebench examples."""

from __future__ import annotations

import asyncio
import textwrap
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest
from numpy.typing import NDArray

from speecheval.agents.base import AgentEvent, AudioOut, VirtualClockAgent
from speecheval.agents.local import LocalAgentServer
from speecheval.session.record.events import PACKET_FLOOR_DB
from speecheval.session.record.recording import SessionRecording

T = TypeVar("T")


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


@contextmanager
def on_own_loop(enter: Callable[[], AbstractAsyncContextManager[T]]) -> Iterator[T]:
    """Enter the async context manager ``enter()`` makes on an event loop of its own, in a
    background thread, so that the CLI's own event loops can talk to what it serves;
    yield what it yields, and leave it on that loop afterwards."""
    ready = threading.Event()
    stop: asyncio.Event | None = None
    entered: list[T] = []
    loop = asyncio.new_event_loop()

    async def hold() -> None:
        nonlocal stop
        stop = asyncio.Event()
        async with enter() as value:
            entered.append(value)
            ready.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(hold(),), daemon=True)
    thread.start()
    assert ready.wait(10), "the local server did not start"
    try:
        yield entered[0]
    finally:
        assert stop is not None
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        loop.close()


@contextmanager
def serving(options: dict[str, str] | None = None, kind: str = "turn",
            protocol: str = "pcm-websocket") -> Iterator[str]:
    """A local agent (default: turn-taking, pcm-websocket) on a background thread;
    yields its URL."""
    with on_own_loop(lambda: LocalAgentServer(kind, protocol, options)) as agent:
        yield agent.url


def to_voicebench(recording: SessionRecording, path: Path, clock: str = "virtual") -> Any:
    """voicebench's SessionRecord for our recording of the scenario at ``path``."""
    vb_runner = pytest.importorskip("voicebench.runner")
    vb_base = pytest.importorskip("voicebench.adapters.base")
    scenario = pytest.importorskip("voicebench.scenario").load_scenario(path)
    windows, packets, clears, transcripts = [], [], [], []
    truncated = False
    for event in (event.report_dict() for event in recording.events):
        t = event["t_ms"] / 1000.0
        if event["type"] == "turn":
            trigger = "timeout" if event["trigger"] == "timeout" else "anchor"
            windows.append(vb_runner.TurnWindow(scenario.turns[event["index"]], t,
                                                event["end_ms"] / 1000.0, trigger))
        elif event["type"] == "audio" and event["level_dbfs"] is not None:
            if event["level_dbfs"] > PACKET_FLOOR_DB:
                packets.append(vb_runner.Packet(t, event["level_dbfs"],
                                                event["samples"] / recording.sample_rate))
        elif event["type"] == "clear":
            clears.append(t)
        elif event["type"] == "transcript":
            transcripts.append(vb_base.Transcript(event["role"], event["text"], t,
                                                  event["final"]))
        elif event["type"] == "truncated":
            truncated = True
    return vb_runner.SessionRecord(
        scenario=scenario, adapter={"type": "mock"}, clock=clock,
        user_track=recording.user.astype(np.float32) / 32768,
        agent_track=recording.agent.astype(np.float32) / 32768,
        windows=windows, packets=packets, clears=clears, transcripts=transcripts,
        truncated=truncated)


def live_session(scenario: Any, agent_options: dict[str, str] | None = None,
                 server_options: dict[str, str] | None = None,
                 protocol: str = "pcm-websocket") -> SessionRecording:
    """One real-clock session of ``scenario`` against a local agent speaking ``protocol``."""
    from speecheval.core.progress import progress
    from speecheval.session.run.real_clock import run_real_clock_sessions

    with serving(server_options, protocol=protocol) as url, progress(1, "test") as advance:
        return run_real_clock_sessions(scenario, protocol, {"url": url, **(agent_options or {})},
                                       1, 1, advance)[0]


class EspeakReplier(VirtualClockAgent):
    """A virtual-clock agent that answers each caller turn with the next of ``texts``
    spoken by espeak-ng (as the local agent's ``voice=espeak`` does), once the caller has
    been quiet for ``quiet_ms``. On the virtual clock its track is the synthesis itself,
    sample for sample, so Whisper hears the same audio on every run and machine load
    cannot cut gaps into it as late packets do on the real clock."""

    def __init__(self, texts: list[str], quiet_ms: float = 400.0) -> None:
        self.texts, self.quiet_ms = texts, quiet_ms

    def start(self, sample_rate: int) -> None:
        self.rate, self.replies, self.heard, self.quiet = sample_rate, 0, False, 0.0

    def process(self, frame: NDArray[np.int16], t_s: float) -> list[AgentEvent]:
        from speecheval.agents.local.voice import espeak_speech

        if np.abs(frame).max(initial=0) > 300:  # the caller is talking
            self.heard, self.quiet = True, 0.0
            return []
        if not self.heard:
            return []
        self.quiet += frame.size * 1000.0 / self.rate
        if self.quiet < self.quiet_ms:
            return []
        self.heard = False
        text = self.texts[self.replies % len(self.texts)]
        self.replies += 1
        return [AudioOut(espeak_speech(text, self.rate).astype("<i2").tobytes())]
