"""The event log of a session: what runners record and what metrics read.

Both runners (virtual and real clock) append typed events to
``SessionRecording.events``; each is written as one line of ``events.jsonl`` by its
``report_dict`` (``type``, ``t_ms`` and the fields below). ``t_ms`` is milliseconds since
session start, on the recording's timeline:

==============  ================================================================
type            event class and other keys
==============  ================================================================
session         :class:`SessionStart`: ``sample_rate``, ``frame_ms``, ``clock``
                ("virtual" or "real")
connected       :class:`Connected` (real clock: the transport connected)
turn            :class:`TurnStart`: ``turn`` (id), ``index``, ``trigger`` (the
                anchor, or "timeout"), ``anchor_ms``, ``end_ms`` (end of the
                turn's audio)
audio           :class:`AgentAudio`: ``samples`` (count), ``level_dbfs`` (packet
                RMS, dBFS; ``null`` for digital silence), ``placed_ms`` (where the
                playout buffer put it)
clear           :class:`AgentClear`: ``dropped_ms`` (buffered, unplayed audio
                removed; the real-clock runner adds ``played_ms``)
speech_started  :class:`SpeechStart`: server VAD heard the user (OpenAI Realtime);
                handled like a clear, with the same keys
server          :class:`ServerEvent`: ``name`` ("speech_stopped": the server's
                endpointer decided the user finished; "response_created": it
                started a reply), as the transport reports them (OpenAI Realtime
                and native-realtime)
transcript      :class:`TranscriptLine`: ``role`` ("user"/"agent"), ``text``, ``final``
network         :class:`NetworkPacket`: one per user frame when the scenario declares
                ``conditions.network``: ``seq``, ``state`` ("good"/"bad"),
                ``delay_ms``, ``reordered``, ``outcome`` ("ok", "lost", "late");
                ``t_ms`` is when the frame was sent
truncated       :class:`Truncated` (the session hit max_duration_ms before all turns
                played)
fault           :class:`Fault`: ``reason`` (the agent failed; the recording up to here
                is kept)
input_end       :class:`InputEnd` (real clock: the end of the user track was sent)
close_error     :class:`CloseError`: ``reason`` (real clock: closing failed)
end             :class:`End` (the last sample of both tracks)
==============  ================================================================

``session`` and ``end`` come from the virtual runner; the real-clock runner
(:mod:`speecheval.session.run.realtime`) logs the agent events plus ``connected``,
``input_end`` and ``close_error``; the ``turn`` events (and ``truncated``) of turns it
started live are merged in by :class:`speecheval.session.run.turn_schedule.ScriptFeed`.

Every event type is a registered result (kind ``session.event.<type>``), so
``core.results.to_dict`` / ``from_dict`` round-trip it; :func:`event_from_dict` reads
the ``events.jsonl`` form back, refusing malformed events. :func:`parse_log` gathers
what metrics use into a :class:`SessionLog`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar, dataclass_transform

import numpy as np
from numpy.typing import NDArray

from ...core import results
from ...core.errors import InputError
from ...core.pcm import level_dbfs

# Agent packets at or below this level are not "audio": not the first audio of a reply
# (time to first audio) and not what the real-clock runner counts as the agent talking.
PACKET_FLOOR_DB = -70.0
# Triggers a turn window can have besides its anchor name.
TRIGGER_TIMEOUT = "timeout"
TRIGGER_NOT_PLAYED = "not_played"

_EVENT_TYPES: dict[str, type[Event]] = {}
E = TypeVar("E", bound="Event")


@dataclass(frozen=True)
class Event:
    """One logged event: ``t_ms`` on the recording's timeline, and a ``type`` per class.

    ``report_dict`` is the ``events.jsonl`` line; a field named in ``_omit_when_none`` is left
    out of it while ``None`` (a key one runner writes and the other does not).
    """

    t_ms: float

    type: ClassVar[str]
    _omit_when_none: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"{field.name!r} is not finite")

    @property
    def t_s(self) -> float:
        return self.t_ms / 1000.0

    def report_dict(self) -> dict[str, Any]:
        """The event as one line of ``events.jsonl``."""
        out: dict[str, Any] = {"type": self.type}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is None and field.name in self._omit_when_none:
                continue
            out[field.name] = value
        return out

    def scrubbed(self, scrub: Callable[[str], str]) -> Event:
        """A copy with every text field passed through ``scrub``."""
        texts: dict[str, Any] = {field.name: scrub(getattr(self, field.name))
                 for field in dataclasses.fields(self)
                 if isinstance(getattr(self, field.name), str)}
        return dataclasses.replace(self, **texts) if texts else self


@dataclass_transform(frozen_default=True)
def _event(name: str) -> Callable[[type[E]], type[E]]:
    """Class decorator: a frozen event dataclass whose ``type`` is ``name``, registered as
    the result kind ``session.event.<name>``."""

    def decorate(cls: type[E]) -> type[E]:
        cls.type = name
        _EVENT_TYPES[name] = cls
        return results.register(f"session.event.{name}")(dataclass(frozen=True)(cls))

    return decorate


@_event("session")
class SessionStart(Event):
    """The session began (virtual clock): its rate, frame length and clock."""

    sample_rate: int
    frame_ms: float
    clock: Literal["virtual", "real"]


@_event("connected")
class Connected(Event):
    """The transport connected (real clock)."""


@_event("turn")
class TurnStart(Event):
    """A scripted turn's audio started; ``anchor_ms`` is the anchor it waited for."""

    turn: str
    index: int
    trigger: str
    anchor_ms: float | None
    end_ms: float


@_event("audio")
class AgentAudio(Event):
    """An agent audio packet arrived: its length, level and where it was placed."""

    samples: int
    level_dbfs: float | None
    placed_ms: float


@_event("clear")
class AgentClear(Event):
    """The agent asked to drop its buffered audio (``played_ms``: real clock only)."""

    dropped_ms: float
    played_ms: int | None = None

    _omit_when_none: ClassVar[tuple[str, ...]] = ("played_ms",)


@_event("speech_started")
class SpeechStart(Event):
    """The server's VAD heard the user (OpenAI Realtime); handled like a clear."""

    dropped_ms: float
    played_ms: int


@_event("server")
class ServerEvent(Event):
    """A server event marking a step of the agent's turn-taking (``name``:
    ``speech_stopped`` or ``response_created``), for the latency split."""

    name: Literal["speech_stopped", "response_created"]


@_event("transcript")
class TranscriptLine(Event):
    """A transcript the agent reported for the user's or its own speech."""

    role: Literal["user", "agent"]
    text: str
    final: bool


@_event("network")
class NetworkPacket(Event):
    """What the scenario's network did to one user frame (``conditions.network``)."""

    seq: int
    state: Literal["good", "bad"]
    delay_ms: float
    reordered: bool
    outcome: Literal["ok", "lost", "late"]


@_event("truncated")
class Truncated(Event):
    """The session hit ``max_duration_ms`` before every turn played."""


@_event("fault")
class Fault(Event):
    """The agent failed; the recording up to here is kept."""

    reason: str


@_event("input_end")
class InputEnd(Event):
    """The end of the user track was sent (real clock)."""


@_event("close_error")
class CloseError(Event):
    """Closing the connection failed (real clock)."""

    reason: str


@_event("end")
class End(Event):
    """The last sample of both tracks (virtual clock)."""


def event_from_dict(data: Mapping[str, Any], n: int = 0) -> Event:
    """The event one ``events.jsonl`` line describes; ``n`` numbers it in errors."""
    kind = data.get("type")
    cls = _EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InputError(f"event {n}: unknown type {kind!r}")
    fields = {key: value for key, value in data.items() if key != "type"}
    try:
        return results.from_dict({results.KIND_KEY: cls.result_kind, **fields})  # type: ignore[attr-defined,no-any-return]
    except InputError as exc:
        raise InputError(f"event {n} ({kind!r}): {exc}") from None


def events_from_dicts(rows: Iterable[Mapping[str, Any]]) -> list[Event]:
    """Every line of an ``events.jsonl`` file, read back."""
    return [event_from_dict(row, n) for n, row in enumerate(rows)]


@dataclass(frozen=True)
class TurnWindow:
    """When a turn's audio played (seconds) and what started it."""

    turn_id: str
    index: int
    start_s: float
    end_s: float
    trigger: str


@dataclass(frozen=True)
class Packet:
    """One agent audio packet: arrival time (seconds) and RMS level (-inf: silence)."""

    t_s: float
    level_db: float


@dataclass(frozen=True)
class SessionLog:
    """The typed content of an event log."""

    windows: tuple[TurnWindow, ...]
    packets: tuple[Packet, ...]
    clears_s: tuple[float, ...]
    transcripts: tuple[TranscriptLine, ...]
    truncated: bool
    fault_s: float | None = None  # when the first fault was logged


def parse_log(events: Iterable[Event]) -> SessionLog:
    """What metrics and reports use of an event log; other event types are left out."""
    windows: list[TurnWindow] = []
    packets: list[Packet] = []
    clears: list[float] = []
    transcripts: list[TranscriptLine] = []
    truncated = False
    fault_s: float | None = None
    for event in events:
        if isinstance(event, TurnStart):
            windows.append(TurnWindow(turn_id=event.turn, index=event.index,
                                      start_s=event.t_s, end_s=event.end_ms / 1000.0,
                                      trigger=event.trigger))
        elif isinstance(event, AgentAudio):
            packets.append(Packet(event.t_s, -math.inf if event.level_dbfs is None
                                  else event.level_dbfs))
        elif isinstance(event, AgentClear | SpeechStart):
            clears.append(event.t_s)
        elif isinstance(event, TranscriptLine):
            transcripts.append(event)
        elif isinstance(event, Truncated):
            truncated = True
        elif isinstance(event, Fault) and fault_s is None:
            fault_s = event.t_s
    return SessionLog(tuple(windows), tuple(packets), tuple(clears), tuple(transcripts),
                      truncated, fault_s)


def packet_level_dbfs(pcm: NDArray[np.int16]) -> float | None:
    """RMS level of an agent packet in dBFS, to 0.01 dB, as both runners log it; None for
    digital silence.

    >>> packet_level_dbfs(np.full(4, 16384, np.int16)), packet_level_dbfs(np.zeros(4, np.int16))
    (-6.02, None)
    """
    level = level_dbfs(pcm)
    return round(level, 2) if math.isfinite(level) else None
