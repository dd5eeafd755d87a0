"""One Full-Duplex-Bench session: send a sample's input on an absolute 80 ms schedule and
keep everything the agent sends, with its monotonic receipt time.

Why not the session runner (``session.realtime.run_realtime``): that runner plays the
agent out as it goes and keeps only the playout. The benchmark's playout is a separate,
versioned step (``reference-export``), so a capture keeps the raw material instead: every
append with the moment it started and completed (its send receipt), every agent event
with the moment it arrived, and the received audio exactly as delivered. Times are
seconds from ``t0``, the loop's monotonic clock when the session was connected; packet
``i`` is due at ``t0 + i * 80 ms`` whatever happened to the packets before it.

The agent's misbehaviour never raises: a fault event, a refused connection, a send or
close that blocks past the timeout, or a session with no audio ends as a fault reason.

What is kept is bounded (:mod:`speecheval.agents.receive_limits`, the input being the
reference length): an agent may send at most ``max_received_ratio`` times the input's
length of audio, and at most ``max_events_per_s`` events per second of it. The event
that would pass a cap is not kept; it ends the session as a fault, so a flooding agent
costs a bounded amount of memory and disk, and its sample is an error rather than a
complete capture.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from ...agents.base import (
    AgentFault,
    AgentTransport,
    AudioOut,
    Clear,
    ServerNote,
    SpeechStarted,
    Transcript,
    close_after_failed_connect,
    failure_reason,
)
from ...agents.receive_limits import (
    MAX_EVENTS_PER_S,
    MAX_RECEIVED_RATIO,
    ReceiveBudget,
    ReceiveLimits,
    close_discarding,
)
from ...core.errors import InputError

PACKET_MS = 80
CLOSE_TIMEOUT_S = 2.0
INPUT_REFERENCE = "the input's"
"""How the caps' fault reasons name a capture's reference length."""


@dataclass(frozen=True)
class CaptureSettings:
    """How a session is run: packet size, the grace after T, the stall timeout, and the
    most agent audio (a multiple of the input's length) and events (per second of the
    input) kept."""

    packet_ms: int = PACKET_MS
    grace_s: float = 1.0
    timeout_s: float = 10.0
    max_received_ratio: float = MAX_RECEIVED_RATIO
    max_events_per_s: float = MAX_EVENTS_PER_S

    @property
    def limits(self) -> ReceiveLimits:
        return ReceiveLimits(max_received_ratio=self.max_received_ratio,
                             max_events_per_s=self.max_events_per_s)


@dataclass
class Capture:
    """What one session produced (see the module docstring)."""

    rate: int
    t0_monotonic: float = 0.0
    trace: list[dict[str, Any]] = field(default_factory=list)
    received: bytearray = field(default_factory=bytearray)
    faults: list[str] = field(default_factory=list)

    @property
    def reasons(self) -> list[str]:
        """Why the capture failed: its faults, or no audio at all."""
        if self.faults:
            return list(self.faults)
        if not self.received:
            return ["no audio received from the agent"]
        return []


def packets(pcm16: bytes, rate: int, packet_ms: int = PACKET_MS) -> list[bytes]:
    """The input cut into ``packet_ms`` packets; the last one may be shorter.

    >>> [len(p) for p in packets(bytes(2 * 3000), 16000)]
    [2560, 2560, 880]
    """
    size = 2 * rate * packet_ms // 1000
    return [pcm16[i:i + size] for i in range(0, len(pcm16), size)]


class _Session:
    def __init__(self, transport: AgentTransport, capture: Capture,
                 settings: CaptureSettings, input_samples: int) -> None:
        self.transport = transport
        self.capture = capture
        self.settings = settings
        self.budget = ReceiveBudget(settings.limits, input_samples, capture.rate,
                                    INPUT_REFERENCE)
        self.loop = asyncio.get_running_loop()
        self.t0 = 0.0
        self.failed = asyncio.Event()

    def now(self) -> float:
        return round(self.loop.time() - self.t0, 6)

    def note(self, kind: str, **fields: Any) -> None:
        self.capture.trace.append({"t_s": self.now(), "type": kind, **fields})

    def fault(self, reason: str) -> None:
        if not self.capture.faults:   # the first fault ends the session; later ones are logged
            self.capture.faults.append(reason)
        self.note("fault", reason=reason)
        self.failed.set()

    async def faulting(self, work: Coroutine[Any, Any, None]) -> None:
        """Await ``work`` (the sending or the receiving task); whatever the transport
        raises in it is a fault: those tasks' results are never read, so an exception
        left in one would end the capture silently, the audio so far marked complete."""
        try:
            await work
        except Exception as exc:
            self.fault(failure_reason(exc))

    async def receive(self) -> None:
        async for event in self.transport.events():
            over = self.budget.event()
            if over is None and isinstance(event, AudioOut):
                over = self.budget.audio(len(event.pcm16) // 2)
            if over is not None:
                self.fault(over)
                return
            if isinstance(event, AudioOut):
                samples = len(event.pcm16) // 2
                self.note("audio", offset=len(self.capture.received) // 2, samples=samples)
                self.capture.received += event.pcm16
            elif isinstance(event, AgentFault):
                self.fault(event.reason)
                return
            elif isinstance(event, Clear):
                self.note("clear")
            elif isinstance(event, SpeechStarted):
                self.note("speech_started")
            elif isinstance(event, Transcript):
                self.note("transcript", role=event.role, text=event.text, final=event.final)
            elif isinstance(event, ServerNote):
                self.note("server_event", name=event.name, **dict(event.fields))
        self.note("events_ended")

    async def bounded(self, action: str, call: Any) -> bool:
        """Await ``call`` within the timeout; a fault (not an exception) when it fails."""
        try:
            async with asyncio.timeout(self.settings.timeout_s):
                await call
        except TimeoutError:
            self.fault(f"agent stalled: {action} blocked for more than "
                       f"{self.settings.timeout_s:g} s")
            return False
        except InputError:
            raise  # the user's settings (a key variable not set): the run stops, exit 2
        except Exception as exc:
            self.fault(failure_reason(exc))
            return False
        return True

    async def send(self, pcm16: bytes) -> None:
        step = self.settings.packet_ms / 1000
        for seq, packet in enumerate(packets(pcm16, self.capture.rate, self.settings.packet_ms)):
            deadline = self.t0 + seq * step
            delay = deadline - self.loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            if self.failed.is_set():
                return
            start = self.now()
            ok = await self.bounded(f"sending packet {seq}", self.transport.send_audio(packet))
            self.capture.trace.append({"t_s": start, "type": "append", "seq": seq,
                                       "deadline_s": round(seq * step, 6), "start_s": start,
                                       "end_s": self.now(), "samples": len(packet) // 2})
            if not ok:
                return
        start = self.now()
        if await self.bounded("ending the input", self.transport.end_input()):
            self.note("input_end", start_s=start, end_s=self.now())


async def capture_session(transport: AgentTransport, pcm16: bytes, rate: int,
                          duration_s: float, settings: CaptureSettings) -> Capture:
    """Run one session: connect at ``rate``, send ``pcm16``, receive until T + grace."""
    capture = Capture(rate=rate)
    session = _Session(transport, capture, settings, len(pcm16) // 2)
    session.t0 = session.loop.time()
    if not await session.bounded("connecting", transport.connect(rate)):
        await close_after_failed_connect(transport, CLOSE_TIMEOUT_S)
        return capture
    session.t0 = session.loop.time()
    capture.t0_monotonic = session.t0
    session.note("connected", rate=rate)
    receiver = asyncio.create_task(session.faulting(session.receive()))
    sender = asyncio.create_task(session.faulting(session.send(pcm16)))
    window_end = session.t0 + duration_s + settings.grace_s
    waiter = asyncio.create_task(session.failed.wait())
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout_at(window_end):
            await asyncio.wait({receiver, waiter}, return_when=asyncio.FIRST_COMPLETED)
    if not sender.done() and not session.failed.is_set():
        await sender   # input longer than the window cannot happen, but never cut a send
    for task in (sender, receiver, waiter):
        task.cancel()
    await asyncio.gather(sender, receiver, waiter, return_exceptions=True)
    session.note("receive_end")
    try:
        async with asyncio.timeout(CLOSE_TIMEOUT_S):
            if session.budget.exceeded:
                await close_discarding(transport)
            else:
                await transport.close()
    except TimeoutError:
        # a stall the keepalive had no time to notice in a short session shows here
        session.fault(f"agent stalled: it did not answer the closing handshake within "
                      f"{CLOSE_TIMEOUT_S:g} s at the end of the session")
    except Exception as exc:
        session.note("close_error", reason=failure_reason(exc))
    return capture
