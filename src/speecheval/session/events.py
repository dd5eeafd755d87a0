"""The event log of a session: what runners write and what metrics read.

Both runners (virtual and real clock) append these dicts to
``SessionRecording.events``; they are written as ``events.jsonl``. Every event has
``t_ms`` (milliseconds since session start, on the recording's timeline) and ``type``:

============  ================================================================
type          other keys
============  ================================================================
session       ``sample_rate``, ``frame_ms``, ``clock`` ("virtual" or "real")
turn          ``turn`` (id), ``index``, ``trigger`` (the anchor, or "timeout"),
              ``end_ms`` (end of the turn's audio)
audio         agent audio: ``samples`` (count), ``level_dbfs`` (packet RMS, dBFS;
              ``null`` for digital silence), ``placed_ms`` (where the playout buffer
              put it)
clear         the agent's clear: ``dropped_ms`` (buffered, unplayed audio removed;
              the real-clock runner adds ``played_ms``)
speech_started  server VAD heard the user (OpenAI Realtime); handled like a clear
transcript    ``role`` ("user"/"agent"), ``text``, ``final``
truncated     (the session hit max_duration_ms before all turns played)
fault         ``reason`` (the agent failed; the recording up to here is kept)
end           (the last sample of both tracks)
============  ================================================================

``session`` and ``end`` come from the virtual runner; the real-clock runner
(:mod:`speecheval.session.realtime`) logs the agent events above plus its own
``input_end`` and ``close_error``; the ``turn`` events (and ``truncated``) of turns it
started live are merged in by :class:`speecheval.session.turn_schedule.ScriptFeed`.
Metrics ignore types they do not use.

:func:`parse_log` turns a list of such dicts back into typed records, refusing
malformed events, so a hand-edited or foreign log cannot be misread silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core.errors import InputError

SESSION = "session"
TURN = "turn"
AGENT_AUDIO = "audio"
CLEAR = "clear"
SPEECH_STARTED = "speech_started"
TRANSCRIPT = "transcript"
TRUNCATED = "truncated"
FAULT = "fault"
END = "end"

# Triggers a turn window can have besides its anchor name.
TRIGGER_TIMEOUT = "timeout"
TRIGGER_NOT_PLAYED = "not_played"


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
class TranscriptEvent:
    t_s: float
    role: str
    text: str
    final: bool


@dataclass(frozen=True)
class SessionLog:
    """The typed content of an event log."""

    windows: tuple[TurnWindow, ...]
    packets: tuple[Packet, ...]
    clears_s: tuple[float, ...]
    transcripts: tuple[TranscriptEvent, ...]
    truncated: bool
    fault_s: float | None = None  # when the first fault was logged


def _field(event: dict[str, Any], key: str, kind: type | tuple[type, ...], n: int) -> Any:
    value = event.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise InputError(f"event {n} ({event.get('type')!r}): {key!r} is missing or has the "
                         f"wrong type: {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"event {n}: {key!r} is not finite")
    return value


def parse_log(events: list[dict[str, Any]]) -> SessionLog:
    """Typed view of ``events``; unknown event types are kept out, malformed ones refused."""
    windows: list[TurnWindow] = []
    packets: list[Packet] = []
    clears: list[float] = []
    transcripts: list[TranscriptEvent] = []
    truncated = False
    fault_s: float | None = None
    number = (int, float)
    for n, event in enumerate(events):
        kind = event.get("type")
        t_s = float(_field(event, "t_ms", number, n)) / 1000.0
        if kind == TURN:
            windows.append(TurnWindow(
                turn_id=_field(event, "turn", str, n), index=_field(event, "index", int, n),
                start_s=t_s, end_s=float(_field(event, "end_ms", number, n)) / 1000.0,
                trigger=_field(event, "trigger", str, n)))
        elif kind == AGENT_AUDIO:
            level = event.get("level_dbfs")
            packets.append(Packet(t_s, -math.inf if level is None
                                  else float(_field(event, "level_dbfs", number, n))))
        elif kind in (CLEAR, SPEECH_STARTED):
            clears.append(t_s)
        elif kind == TRANSCRIPT:
            transcripts.append(TranscriptEvent(
                t_s, _field(event, "role", str, n), _field(event, "text", str, n),
                _field(event, "final", bool, n)))
        elif kind == TRUNCATED:
            truncated = True
        elif kind == FAULT and fault_s is None:
            fault_s = t_s
    return SessionLog(tuple(windows), tuple(packets), tuple(clears), tuple(transcripts),
                      truncated, fault_s)


def packet_level_dbfs(pcm: NDArray[np.int16]) -> float | None:
    """RMS level of an agent packet in dBFS, to 0.01 dB, as both runners log it; None for
    digital silence.

    >>> packet_level_dbfs(np.full(4, 16384, np.int16)), packet_level_dbfs(np.zeros(4, np.int16))
    (-6.02, None)
    """
    wide = pcm.astype(np.int64)
    energy = float(wide @ wide)  # exact: int16 squares summed in int64
    mean_square = energy / (max(1, pcm.size) * 32768.0 ** 2)
    return round(10.0 * math.log10(mean_square), 2) if mean_square > 0 else None
