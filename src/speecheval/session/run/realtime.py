"""The real-clock session runner: play a user track into a live agent and record both sides.

Timing model:

* One monotonic clock (the event loop's). Frame ``i`` of the user track is due at
  ``t0 + i * frame_ms`` (an absolute deadline, so a late frame does not push the rest
  back). How late each frame actually left is recorded, one value per frame; this is
  where backpressure from a slow agent or an overloaded machine shows up.
* Sending and receiving run in separate tasks, so a burst of agent audio never delays
  the user's frames and a blocked send never delays packet arrival times.
* Agent audio goes through a playout buffer like a phone's: a packet plays from
  ``max(arrival, end of the audio before it)``. A :class:`Clear` (or, for OpenAI
  Realtime, :class:`SpeechStarted`) drops the buffered audio that has not played yet,
  and the transport is told how much was played (``report_played``) so it can
  truncate the agent's own context.
* A misbehaving agent (disconnect, garbage, error event, stall, wrong sample rate) ends
  the session early with ``SessionRecording.fault`` set to a one-line reason; both
  tracks up to that moment are kept. The runner never raises for a fault of the agent.
  An agent that stalled too late for its keepalive pings to notice within the session
  is caught at the end: it does not answer the end of input or the closing handshake
  within ``CLOSE_TIMEOUT_S``, and that is its fault too (the tracks are not extended).
* What the agent sends is bounded by a :class:`ReceiveBudget` (audio and events, see
  :mod:`speecheval.agents.receive_limits`): the event that would pass a cap is not kept,
  its reason is the session's fault, and what the agent still has in flight is read and
  dropped while the connection closes. The playout buffer holds every chunk that
  arrived, so without it a flooding agent would cost memory without end.

After the user track, ``tail_ms`` of silence is still streamed (agents that endpoint on
silence need to hear it). With ``agent_vad`` set, silence keeps streaming after the tail
for as long as the agent is still talking (the detector, fed the agent audio as it plays,
has an open segment) or audible agent audio is still queued in the playout buffer, up to
``max_duration_ms``: as on the virtual clock, a reply longer than the tail is recorded to
its end rather than cut off. Then the end of input is signalled and the connection closed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from ...agents.base import (
    AgentEvent,
    AgentFault,
    AgentTransport,
    AudioOut,
    Clear,
    ServerMark,
    SpeechStarted,
    Transcript,
    close_after_failed_connect,
    failure_reason,
)
from ...agents.receive_limits import ReceiveBudget, close_discarding
from ...core.errors import InputError
from ...vad.streaming import StreamingVad, VadSettings
from ..record import events as ev
from ..record.events import PACKET_FLOOR_DB
from ..record.recording import SessionRecording

CONNECT_TIMEOUT_S = 10.0
CLOSE_TIMEOUT_S = 2.0
STALL_TIMEOUT_MS = 2000
# The event loop's timers wake on a 1 ms grid (epoll rounds its timeout up to whole
# milliseconds), so a wake-up aimed at t lands in [t, t + 1 ms]. Aiming half a
# millisecond early centres that error on the deadline: frames leave within about
# +-0.5 ms of it when the machine keeps up. Lateness is recorded signed, so an early
# frame shows as a small negative value rather than being hidden.
TIMER_LEAD_S = 0.0005


@dataclass
class _Chunk:
    start: int
    pcm: NDArray[np.int16]


@dataclass
class Playout:
    """Agent audio placed on the session timeline as a playback buffer would play it.

    Offsets are samples from the session start. ``received`` counts every agent sample
    that arrived, played or not: it is the coordinate of ``report_played``.
    ``audible_end`` is where the last packet placed as ``audible`` stops playing: a
    full-duplex agent streams digital silence all the time, and queued silence is not an
    agent still talking.

    >>> p = Playout()
    >>> p.place(np.ones(100, np.int16), arrival=50), p.place(np.ones(100, np.int16), arrival=60)
    (50, 150)
    >>> p.clear(at=200)      # 150 samples played, 50 buffered ones dropped
    (50, 150)
    >>> int(p.render(300).sum()), p.end
    (150, 200)
    """

    chunks: list[_Chunk] = field(default_factory=list)
    end: int = 0
    received: int = 0
    audible_end: int = 0
    _cursor: int = field(default=0, init=False, repr=False)  # first chunk segment() reads

    def place(self, pcm: NDArray[np.int16], arrival: int, audible: bool = True) -> int:
        """Queue a packet that arrived at sample ``arrival``; return where it starts playing."""
        start = max(arrival, self.end)
        self.chunks.append(_Chunk(start, pcm))
        self.end = start + pcm.size
        self.received += pcm.size
        if audible:
            self.audible_end = self.end
        return start

    def clear(self, at: int) -> tuple[int, int]:
        """Drop audio not yet played at sample ``at``; return (dropped, played position)."""
        dropped = max(0, self.end - at)
        played = self.received - dropped
        while self.chunks and self.chunks[-1].start >= at:
            self.chunks.pop()
        if self.chunks and self.chunks[-1].start + self.chunks[-1].pcm.size > at:
            last = self.chunks[-1]
            last.pcm = last.pcm[: at - last.start]
        self.end = min(self.end, at)
        self.audible_end = min(self.audible_end, at)
        return dropped, played

    def segment(self, start: int, stop: int) -> NDArray[np.int16]:
        """The agent track on [start, stop); successive calls must move forward."""
        out = np.zeros(max(0, stop - start), dtype=np.int16)
        chunks = self.chunks
        first = min(self._cursor, len(chunks))
        while first < len(chunks) and chunks[first].start + chunks[first].pcm.size <= start:
            first += 1
        self._cursor = first
        for index in range(first, len(chunks)):
            chunk = chunks[index]
            if chunk.start >= stop:
                break
            lo, hi = max(start, chunk.start), min(stop, chunk.start + chunk.pcm.size)
            if hi > lo:
                out[lo - start : hi - start] = chunk.pcm[lo - chunk.start : hi - chunk.start]
        return out

    def render(self, n_samples: int) -> NDArray[np.int16]:
        """The agent track, ``n_samples`` long (audio scheduled past the end is cut)."""
        track = np.zeros(n_samples, dtype=np.int16)
        for chunk in self.chunks:
            if chunk.start >= n_samples:
                break
            stop = min(n_samples, chunk.start + chunk.pcm.size)
            track[chunk.start : stop] = chunk.pcm[: stop - chunk.start]
        return track


class _Session:
    """State shared by the sender and receiver tasks of one run."""

    def __init__(self, transport: AgentTransport, sample_rate: int,
                 budget: ReceiveBudget | None) -> None:
        self.transport = transport
        self.rate = sample_rate
        self.budget = budget
        self.loop = asyncio.get_running_loop()
        self.t0 = self.loop.time()
        self.playout = Playout()
        self.events: list[ev.Event] = []
        self.lateness_ms: list[float] = []
        self.fault: str | None = None
        self.fault_sample: int | None = None
        self.stop = asyncio.Event()

    def now_ms(self) -> float:
        return round((self.loop.time() - self.t0) * 1000.0, 3)

    def now_sample(self) -> int:
        return max(0, round((self.loop.time() - self.t0) * self.rate))

    def log(self, kind: type[ev.Event], **fields: Any) -> None:
        """Log an event of class ``kind`` at the current time."""
        self.events.append(kind(t_ms=self.now_ms(), **fields))

    def fail(self, reason: str, *, after_recording: bool = False) -> None:
        """Record the first fault and end the session; later faults are only logged.

        ``after_recording``: the fault was found once the recording had ended (the agent
        did not answer the end of the session), so the tracks are not extended to it.
        """
        self.log(ev.Fault, reason=reason)
        if self.fault is None:
            self.fault = reason
            if not after_recording:
                self.fault_sample = self.now_sample()
        self.stop.set()

    def ms(self, samples: int) -> float:
        return round(samples * 1000.0 / self.rate, 3)

    async def handle(self, event: AgentEvent) -> None:
        if isinstance(event, AudioOut):
            self._audio(event)
        elif isinstance(event, Clear | SpeechStarted):
            kind = ev.AgentClear if isinstance(event, Clear) else ev.SpeechStart
            dropped, played = self.playout.clear(self.now_sample())
            played_ms = played * 1000 // self.rate
            self.log(kind, dropped_ms=self.ms(dropped), played_ms=played_ms)
            await self.transport.report_played(played_ms)
        elif isinstance(event, ServerMark):
            self.log(ev.ServerEvent, name=event.kind)
        elif isinstance(event, Transcript):
            self.log(ev.TranscriptLine, role=event.role, text=event.text, final=event.final)
        elif isinstance(event, AgentFault):
            self.fail(event.reason)

    def _audio(self, event: AudioOut) -> None:
        if len(event.pcm16) % 2:
            self.fail(f"malformed audio event: {len(event.pcm16)} bytes is not PCM16")
            return
        pcm = np.frombuffer(event.pcm16, dtype="<i2").astype(np.int16)
        if pcm.size == 0:
            return
        over = None if self.budget is None else self.budget.audio(pcm.size)
        if over is not None:
            self.fail(over)
            return
        level = ev.packet_level_dbfs(pcm)
        audible = level is not None and level > PACKET_FLOOR_DB
        start = self.playout.place(pcm, self.now_sample(), audible)
        self.log(ev.AgentAudio, samples=int(pcm.size), placed_ms=self.ms(start), level_dbfs=level)


async def _receive(session: _Session) -> None:
    """Handle the agent's events until it faults or the session stops. Whatever the
    transport raises is the session's fault: nobody awaits this task's result, so an
    exception left in it would end the receiving silently and keep half the audio."""
    try:
        async for event in session.transport.events():
            over = None if session.budget is None else session.budget.event()
            if over is not None:
                session.fail(over)
                return
            await session.handle(event)
            if session.stop.is_set():
                return
    except Exception as exc:
        session.fail(failure_reason(exc))


class UserFeed(Protocol):
    """A user track made live, frame by frame, for turns triggered by the agent's speech.

    ``next_frame(index, agent_played)`` returns user frame ``index`` (exactly one frame
    of int16 samples), or None when the script is over (the tail follows).
    ``agent_played`` is the agent audio that played since the previous call, on the
    session timeline; audio once handed over is final (a later clear cannot remove it).
    """

    def next_frame(self, index: int,
                   agent_played: NDArray[np.int16]) -> NDArray[np.int16] | None: ...



class AgentListener(Protocol):
    """Hears the agent audio as it plays (``push``) and says whether the agent is
    talking (``speaking``); :class:`StreamingVad` is one."""

    def push(self, samples: NDArray[np.int16]) -> object: ...

    @property
    def speaking(self) -> bool: ...


@runtime_checkable
class ListeningFeed(Protocol):
    """A feed that needs the agent's speech itself (turns triggered by it): the runner
    feeds its ``listener`` the agent audio of every frame, the tail's included, and asks
    that listener whether the agent is still talking rather than running a second
    detector on the same audio."""

    listener: AgentListener


@runtime_checkable
class TailFeed(Protocol):
    """A feed that also makes the frames after the script (the tail), which are otherwise
    silence: the scenario's echo and noise are on the user's line without the user."""

    def tail_frame(self, index: int, agent_played: NDArray[np.int16]) -> NDArray[np.int16]: ...


class ArrayFeed:
    """A fixed user track, zero-padded to whole frames."""

    def __init__(self, user: NDArray[np.int16], frame: int) -> None:
        if user.ndim != 1:
            raise InputError(f"the user track must be mono, got shape {user.shape}")
        padded = np.zeros(-(-user.size // frame) * frame, dtype=np.int16)
        padded[: user.size] = user
        self.frames = padded.reshape(-1, frame)

    def next_frame(self, index: int,
                   agent_played: NDArray[np.int16]) -> NDArray[np.int16] | None:
        return self.frames[index] if index < self.frames.shape[0] else None


async def _send(session: _Session, feed: UserFeed, frame: int, tail_frames: int,
                max_frames: int | None, stall_timeout_s: float,
                listener: AgentListener | None, hold: bool) -> list[NDArray[np.int16]]:
    """Send frames on absolute deadlines; return the frames sent, in order.

    ``listener`` hears the agent audio as it plays; with ``hold`` it holds the session
    open after the tail while the agent is talking (without: stop after the tail).
    """
    frame_s = frame / session.rate
    sent: list[NDArray[np.int16]] = []
    silence = np.zeros(frame, dtype=np.int16)
    script_over, tail_left, cursor = False, tail_frames, 0
    while max_frames is None or len(sent) < max_frames:
        deadline = session.t0 + len(sent) * frame_s
        delay = deadline - TIMER_LEAD_S - session.loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        if session.stop.is_set():
            break
        pcm: NDArray[np.int16] | None = None
        # the agent audio played up to this frame's start (not beyond it when the loop is
        # late: the recording ends at a frame start, and the detectors must agree on it)
        now = min(session.now_sample(), len(sent) * frame)
        played = session.playout.segment(cursor, now)
        cursor = max(cursor, now)
        if listener is not None:
            listener.push(played)
        if not script_over:
            pcm = feed.next_frame(len(sent), played)
            script_over = pcm is None
        if pcm is None:
            if tail_left > 0:
                tail_left -= 1
            elif not (hold and _agent_talking(session, listener, now)):
                break
            pcm = (feed.tail_frame(len(sent), played) if isinstance(feed, TailFeed)
                   else silence)
        if pcm.shape != (frame,):
            raise InputError(f"user frame {len(sent)} has shape {pcm.shape}, "
                             f"expected ({frame},)")
        session.lateness_ms.append((session.loop.time() - deadline) * 1000.0)
        try:
            async with asyncio.timeout(stall_timeout_s):
                await session.transport.send_audio(pcm.astype("<i2").tobytes())
        except TimeoutError:
            session.fail(f"agent stalled: sending one frame blocked for more than "
                         f"{stall_timeout_s * 1000:.0f} ms")
            break
        except Exception as exc:
            session.fail(failure_reason(exc))
            break
        sent.append(pcm)
    if not session.stop.is_set():
        delay = session.t0 + len(sent) * frame_s - session.loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
    return sent


def _agent_talking(session: _Session, listener: AgentListener | None, now: int) -> bool:
    """Whether the agent is still talking at sample ``now``: its speech segment is open, or
    audible audio is queued to play after ``now`` (not yet heard by the detector)."""
    if listener is None:
        return False
    return listener.speaking or session.playout.audible_end > now


async def _finish(session: _Session, receiver: asyncio.Task[None]) -> None:
    """End the input and close; an agent that does not answer either within
    ``CLOSE_TIMEOUT_S`` has stalled, however short the session was (keepalive pings take
    ``ping_interval_s + ping_timeout_s`` to notice a stall, often longer than a session)."""
    receiver.cancel()
    await asyncio.gather(receiver, return_exceptions=True)
    if session.fault is None:
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT_S):
                await session.transport.end_input()
            session.log(ev.InputEnd)
        except TimeoutError:
            session.fail(f"agent stalled: ending the input at the end of the session "
                         f"blocked for more than {CLOSE_TIMEOUT_S:g} s", after_recording=True)
        except Exception as exc:
            session.log(ev.CloseError, reason=failure_reason(exc))
    try:
        async with asyncio.timeout(CLOSE_TIMEOUT_S):
            if session.budget is not None and session.budget.exceeded:
                await close_discarding(session.transport)
            else:
                await session.transport.close()
    except TimeoutError:
        if session.fault is None:
            session.fail(f"agent stalled: it did not answer the closing handshake within "
                         f"{CLOSE_TIMEOUT_S:g} s at the end of the session",
                         after_recording=True)
        else:
            session.log(ev.CloseError, reason="TimeoutError")
    except Exception as exc:
        session.log(ev.CloseError, reason=failure_reason(exc))


async def run_realtime(transport: AgentTransport, user_pcm16: NDArray[np.int16] | UserFeed,
                       sample_rate: int, frame_ms: int = 20, tail_ms: int = 1000,
                       max_duration_ms: int | None = None, *,
                       agent_vad: VadSettings | None = None,
                       stall_timeout_ms: int = STALL_TIMEOUT_MS,
                       connect_timeout_s: float = CONNECT_TIMEOUT_S,
                       budget: ReceiveBudget | None = None) -> SessionRecording:
    """Stream the user track to ``transport`` in real time and record both sides.

    ``user_pcm16`` is the user track (mono int16 at ``sample_rate``) or a
    :class:`UserFeed` that makes it frame by frame. ``frame_ms`` is the send period,
    ``tail_ms`` the silence streamed after the track, ``max_duration_ms`` caps the
    session (None: no cap). With ``agent_vad`` (the scenario's agent-track detector
    settings), silence keeps streaming after the tail until the agent is silent by that
    detector and no audible agent audio is queued (a :class:`ListeningFeed`'s listener is
    that detector); without it, the session ends with the tail. A send that blocks
    longer than ``stall_timeout_ms`` is a stall fault. ``budget`` caps the audio and the
    events kept (None: no cap, for an agent the caller trusts). Returns the recording; the agent's
    faults (including failing to connect) are in ``recording.fault``, not raised. Bad
    arguments raise :class:`InputError`.
    """
    frame = sample_rate * frame_ms // 1000
    if frame <= 0 or frame * 1000 != sample_rate * frame_ms:
        raise InputError(f"frame_ms={frame_ms} is not a whole number of samples "
                         f"at {sample_rate} Hz")
    feed = (ArrayFeed(np.asarray(user_pcm16, dtype=np.int16), frame)
            if isinstance(user_pcm16, np.ndarray) else user_pcm16)
    max_frames = None if max_duration_ms is None else sample_rate * max_duration_ms // 1000 // frame
    tail_frames = -(-sample_rate * tail_ms // 1000 // frame)
    reason: str | None = None
    try:
        async with asyncio.timeout(connect_timeout_s):
            await transport.connect(sample_rate)
    except InputError:
        raise  # the user's settings (a key variable not set): exit 2, not the agent's fault
    except TimeoutError as exc:
        reason = str(exc) or f"could not connect within {connect_timeout_s} s"
    except Exception as exc:
        reason = failure_reason(exc)
    if reason is not None:
        await close_after_failed_connect(transport, CLOSE_TIMEOUT_S)
        empty = np.zeros(0, dtype=np.int16)
        return SessionRecording(sample_rate=sample_rate, user=empty, agent=empty,
                                events=[ev.Fault(t_ms=0.0, reason=reason)],
                                fault=reason)
    session = _Session(transport, sample_rate, budget)
    session.log(ev.Connected)
    receiver = asyncio.create_task(_receive(session))
    sent: list[NDArray[np.int16]] = []
    try:
        listener: AgentListener | None = (
            feed.listener if isinstance(feed, ListeningFeed)
            else None if agent_vad is None else StreamingVad(sample_rate, agent_vad))
        sent = await _send(session, feed, frame, tail_frames, max_frames,
                           stall_timeout_ms / 1000.0, listener, agent_vad is not None)
    finally:
        await _finish(session, receiver)
    sent_samples = np.concatenate(sent) if sent else np.zeros(0, dtype=np.int16)
    n_samples = sent_samples.size
    if session.fault_sample is not None:
        n_samples = max(n_samples, session.fault_sample)
    user = np.zeros(n_samples, dtype=np.int16)
    user[: sent_samples.size] = sent_samples
    return SessionRecording(sample_rate=sample_rate, user=user,
                            agent=session.playout.render(n_samples), events=session.events,
                            send_lateness_ms=session.lateness_ms, fault=session.fault)
