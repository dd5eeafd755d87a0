"""The seam between benchmarks and agents: events an agent emits, and the transport API.

Benchmarks never talk to a socket directly; they drive an :class:`AgentTransport` and
receive :data:`AgentEvent` values, so every transport (and a local test agent behind it)
plugs into the same runner.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal, Protocol


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
class AgentFault:
    """The agent misbehaved (disconnect, malformed message, error event, stall, bad rate)."""

    reason: str


AgentEvent = AudioOut | Clear | Transcript | SpeechStarted | AgentFault


class AgentTransport(Protocol):
    """A live connection to an agent on the real clock.

    The runner calls ``connect`` once, then ``send_audio`` for every user frame on an
    absolute schedule while a separate task iterates ``events``; ``end_input`` marks the
    end of the user track, ``close`` releases the connection. ``events`` ends when the
    agent closes; faults are yielded as :class:`AgentFault`, not raised.
    """

    async def connect(self, sample_rate: int) -> None: ...

    async def send_audio(self, pcm16: bytes) -> None: ...

    def events(self) -> AsyncIterator[AgentEvent]: ...

    async def report_played(self, played_ms: int) -> None:
        """Tell the agent how much of its current reply was actually played (truncate).

        ``played_ms`` is the playback position counted over all agent audio received on
        this connection (played or later dropped); a transport that tracks replies maps
        it to the reply that was playing and the milliseconds of it that were heard.
        """
        ...

    async def end_input(self) -> None: ...

    async def close(self) -> None: ...
