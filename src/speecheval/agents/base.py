"""The seam between benchmarks and agents: events an agent emits, and the agent APIs.

Benchmarks never talk to a socket directly; they drive an :class:`Agent` and receive
:data:`AgentEvent` values, so every transport (and a local test agent behind it) plugs
into the same runner. An agent is one of two abstract base classes, and its class
attribute ``clock`` says which runner drives it, read before it is ever built:

- :class:`AgentTransport` (``clock = "real"``): a live connection, driven on the real
  clock by :func:`speecheval.session.run.realtime.run_realtime`;
- :class:`VirtualClockAgent` (``clock = "virtual"``): an in-process agent driven frame by
  frame by :func:`speecheval.session.run.virtual_runner.run_virtual` (the mock).

A custom agent (``--agent module:Class``) subclasses one of them; Python then refuses to
build one that lacks a method, so no list of method names is kept anywhere.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from ..core.errors import SystemUnderTestError

Clock = Literal["virtual", "real"]


@dataclass(frozen=True)
class AudioOut:
    """Agent audio: PCM16 little-endian mono at the session's sample rate."""

    pcm16: bytes


@dataclass(frozen=True)
class Clear:
    """The agent asks the client to drop audio it sent but that has not been played yet."""


@dataclass(frozen=True)
class Transcript:
    """A transcript the agent reports for the user's or its own speech."""

    role: Literal["user", "agent"]
    text: str
    final: bool


@dataclass(frozen=True)
class SpeechStarted:
    """Server-side VAD detected the user starting to speak (OpenAI Realtime semantics)."""


@dataclass(frozen=True)
class ServerMark:
    """A server event that marks a step of the agent's turn-taking, logged for the latency
    split: ``speech_stopped`` (its endpointer decided the user finished) or
    ``response_created`` (it started a reply). Transports without such events send none."""

    kind: Literal["speech_stopped", "response_created"]


@dataclass(frozen=True)
class AgentFault:
    """The agent misbehaved (disconnect, malformed message, error event, stall, bad rate)."""

    reason: str


@dataclass(frozen=True)
class ServerNote:
    """A server event kept in the capture trace as the server stated it (a duplex server's
    turn events and playback-commit cursors): ``name`` is the event, ``fields`` the few
    values of it worth keeping (numbers, ids, policy words), never audio."""

    name: str
    fields: tuple[tuple[str, str | int | float | bool | None], ...] = ()


AgentEvent = (AudioOut | Clear | Transcript | SpeechStarted | ServerMark | ServerNote
              | AgentFault)


class Agent(ABC):
    """Anything a session runs against; ``clock`` names the runner that drives it."""

    clock: ClassVar[Clock]


class AgentTransport(Agent):
    """A live connection to an agent on the real clock.

    The runner calls ``connect`` once, then ``send_audio`` for every user frame on an
    absolute schedule while a separate task iterates ``events``; ``end_input`` marks the
    end of the user track, ``close`` releases the connection. ``events`` ends when the
    agent closes; faults are yielded as :class:`AgentFault`, not raised.
    """

    clock: ClassVar[Clock] = "real"

    @abstractmethod
    async def connect(self, sample_rate: int) -> None: ...

    @abstractmethod
    async def send_audio(self, pcm16: bytes) -> None: ...

    @abstractmethod
    def events(self) -> AsyncIterator[AgentEvent]: ...

    @abstractmethod
    async def report_played(self, played_ms: int) -> None:
        """Tell the agent how much of its current reply was actually played (truncate).

        ``played_ms`` is the playback position counted over all agent audio received on
        this connection (played or later dropped); a transport that tracks replies maps
        it to the reply that was playing and the milliseconds of it that were heard.
        """

    @abstractmethod
    async def end_input(self) -> None: ...

    @abstractmethod
    async def close(self) -> None: ...


def failure_reason(exc: BaseException) -> str:
    """The fault reason for an exception a transport raised in a session.

    Transports report a misbehaving agent as :class:`SystemUnderTestError` (or an
    ``OSError`` from the socket), whose message is the reason. Anything else escaped a
    transport that a message broke, or a custom agent's own code: that is the agent's
    fault too, named by its type so it is never lost in a task nobody awaits.
    """
    if isinstance(exc, SystemUnderTestError | OSError):
        return str(exc) or type(exc).__name__
    detail = f": {exc}" if str(exc) else ""
    return f"the agent's transport failed: {type(exc).__name__}{detail}"


async def close_after_failed_connect(transport: AgentTransport, timeout_s: float) -> None:
    """Release whatever a failed ``connect`` half-opened, within ``timeout_s``: an error
    here is dropped, since the connect's fault is the one a runner records."""
    import asyncio
    import contextlib

    with contextlib.suppress(Exception):
        async with asyncio.timeout(timeout_s):
            await transport.close()


class VirtualClockAgent(Agent):
    """An agent driven frame by frame on the virtual clock (no sockets, no waiting).

    ``process`` gets the user frame that starts at ``t_s`` and returns what the agent
    sends in reply at that instant; audio is placed on the agent track at ``t_s``.
    """

    clock: ClassVar[Clock] = "virtual"

    @abstractmethod
    def start(self, sample_rate: int) -> None: ...

    @abstractmethod
    def process(self, frame: NDArray[np.int16], t_s: float) -> list[AgentEvent]: ...
