"""Server events of OpenAI-Realtime-style protocols, shared by two transports.

``openai-realtime`` and ``native-realtime`` speak the same event vocabulary, in two
spellings: the GA names (``response.output_audio.delta``) and the beta names
(``response.audio.delta``). This module turns either into :data:`AgentEvent` values and
keeps the per-item audio ledger that ``conversation.item.truncate`` needs.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from ..core.stream_resample import StreamResampler
from .base import AgentEvent, AgentFault, AudioOut, ServerMark, SpeechStarted, Transcript
from .protocol_events import Realtime

AUDIO_DELTA = frozenset({Realtime.AUDIO_DELTA, Realtime.AUDIO_DELTA_BETA})
AGENT_TRANSCRIPT_DONE = frozenset({Realtime.AGENT_TRANSCRIPT_DONE,
                                   Realtime.AGENT_TRANSCRIPT_DONE_BETA})
SESSION_EVENTS = frozenset({Realtime.SESSION_CREATED, Realtime.SESSION_UPDATED})


@dataclass
class _ItemAudio:
    item_id: str
    start: int  # offset of the item's first sample in all agent audio received, session rate
    length: int


class RealtimeDecoder:
    """Decode server events; remember where each item's audio sits in the received stream.

    ``wire_rate`` is the rate of audio on the wire (24 kHz for OpenAI), ``session_rate``
    the session's. Offsets are counted in session-rate samples of received audio, the
    same coordinate in which the runner reports its playout position.
    """

    def __init__(self, wire_rate: int, session_rate: int, implied_rate: int) -> None:
        self.wire_rate = wire_rate
        self.session_rate = session_rate
        self.implied_rate = implied_rate
        self._resampler = StreamResampler(wire_rate, session_rate)
        self._items: list[_ItemAudio] = []
        self._received = 0
        self._truncated: set[str] = set()

    def decode(self, data: dict[str, Any]) -> AgentEvent | None:
        kind = data.get("type")
        if kind in AUDIO_DELTA:
            return self._audio(data)
        if kind == Realtime.SPEECH_STARTED:
            return SpeechStarted()
        if kind == Realtime.SPEECH_STOPPED:
            return ServerMark("speech_stopped")
        if kind == Realtime.RESPONSE_CREATED:
            return ServerMark("response_created")
        if kind == Realtime.USER_TRANSCRIPT_DONE and isinstance(data.get("transcript"), str):
            return Transcript(role="user", text=data["transcript"], final=True)
        if kind == Realtime.USER_TRANSCRIPT_DELTA and isinstance(data.get("delta"), str):
            return Transcript(role="user", text=data["delta"], final=False)
        if kind in AGENT_TRANSCRIPT_DONE and isinstance(data.get("transcript"), str):
            return Transcript(role="agent", text=data["transcript"], final=True)
        if kind == Realtime.ERROR:
            return AgentFault(f"agent error event: {error_text(data.get('error'))}")
        if kind in SESSION_EVENTS:
            return self._check_session(data.get("session"))
        return None

    def truncate_point(self, played_ms: int) -> tuple[str, int] | None:
        """(item_id, audio_end_ms) for a playout position, or None if nothing to truncate.

        ``played_ms`` counts all agent audio received on this connection; the item is the
        last one that started at or before that point, and ``audio_end_ms`` is the part
        of it that played. A fully played item needs no truncate.
        """
        played = played_ms * self.session_rate // 1000
        for item in reversed(self._items):
            if item.start <= played:
                inside = played - item.start
                if inside >= item.length:
                    return None
                return item.item_id, inside * 1000 // self.session_rate
        return None

    def mark_truncated(self, item_id: str) -> None:
        """Drop any further audio of ``item_id``: the client truncated it."""
        self._truncated.add(item_id)

    def _audio(self, data: dict[str, Any]) -> AgentEvent | None:
        try:
            wire = base64.b64decode(str(data.get("delta", "")), validate=True)
        except (binascii.Error, ValueError):
            return AgentFault(f"malformed audio delta from agent: {data.get('type')} "
                              "is not valid base64")
        if len(wire) % 2:
            return AgentFault(f"malformed audio delta from agent: {len(wire)} bytes is not "
                              "a whole number of PCM16 samples")
        item_id = str(data.get("item_id", ""))
        if item_id in self._truncated:
            return None  # late audio of a reply the user interrupted: a client drops it
        pcm16 = self._resampler.process_pcm16(wire)
        if not self._items or self._items[-1].item_id != item_id:
            self._items.append(_ItemAudio(item_id, self._received, 0))
        samples = len(pcm16) // 2
        self._items[-1].length += samples
        self._received += samples
        return AudioOut(pcm16)

    def _check_session(self, session: Any) -> AgentEvent | None:
        declared = _declared_output_rate(session, self.implied_rate)
        if declared is None or declared == self.wire_rate:
            return None
        return AgentFault(f"wrong sample rate: agent declared {declared} Hz output audio, "
                          f"expected {self.wire_rate} Hz")


def _declared_output_rate(session: Any, implied_rate: int) -> int | str | None:
    """The output rate a session object declares (GA nested, beta format name, or flat)."""
    if not isinstance(session, dict):
        return None
    audio = session.get("audio")
    if isinstance(audio, dict):
        output = audio.get("output")
        fmt = output.get("format") if isinstance(output, dict) else None
        if isinstance(fmt, dict) and "rate" in fmt:
            return fmt["rate"] if isinstance(fmt["rate"], int) else str(fmt["rate"])
    for key in ("output_sample_rate", "sample_rate"):
        if isinstance(session.get(key), int):
            return int(session[key])
    beta = session.get("output_audio_format")
    if isinstance(beta, str):
        return implied_rate if beta == "pcm16" else beta
    return None


def error_text(error: Any) -> str:
    """An ``error`` event's payload in one line: type, code, message and, where the server
    names the offending field (``param``, as OpenAI and SGLang-Omni do), that field."""
    if isinstance(error, dict):
        parts = [str(error[key]) for key in ("type", "code", "message") if error.get(key)]
        text = ": ".join(parts) if parts else "no details"
        return f"{text} (param {error['param']})" if error.get("param") else text
    return str(error) if error else "no details"
