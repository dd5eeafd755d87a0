"""``pcm-websocket``: raw PCM16 over a WebSocket, the protocol of ``voicebench mock-server``.

Wire protocol:

* client to agent: one binary message per user frame, mono PCM16 little-endian at the
  session rate; optionally a JSON ``start_message`` first (``sample_rate`` is added);
  ``headers`` (a JSON object) go with the opening handshake, and only their names are
  ever described, since they often carry tokens;
* agent to client: binary messages of mono PCM16 at the agent's rate (the session rate
  unless ``agent_sample_rate`` says otherwise; resampled here), and JSON text messages
  ``{"type": "clear"}``, ``{"type": "transcript", "role": "user"|"agent", "text": ...,
  "final": true}``, ``{"type": "error", "message": ...}`` (a fault) and
  ``{"type": "format", "sample_rate": N}`` (the agent declaring its output rate; a rate
  other than the expected one is a fault, because the audio would play at the wrong
  speed). Other message types are ignored, as voicebench does; text that is not JSON is
  a fault.

The protocol has no way to tell the agent how much of its reply was played, so
``report_played`` sends nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Literal

from ..core.errors import InputError
from ..core.redact import redact_url
from ..core.stream_resample import StreamResampler
from ._ws import parse_json_object
from ._ws_transport import WebSocketTransport
from .base import AgentEvent, AgentFault, AudioOut, Clear, Transcript
from .protocol_events import PcmWs

NAME = "pcm-websocket"

class PcmWebSocketTransport(WebSocketTransport):
    """Client for agents that stream raw PCM16 both ways (see the module docstring)."""

    name = NAME

    def __init__(self, **options: str) -> None:
        from .transport_options import PcmWebSocketOptions, parse_options  # pydantic: lazily

        opts = parse_options(NAME, options, PcmWebSocketOptions)
        super().__init__(opts)
        self.agent_sample_rate = opts.parsed.agent_sample_rate
        self.start_message = _json_object(opts.parsed.start_message, "start_message")
        headers = _json_object(opts.parsed.headers, "headers") or {}
        self._headers = {str(name): str(value) for name, value in headers.items()}
        self._sample_rate = 0
        self._resampler: StreamResampler | None = None

    async def connect(self, sample_rate: int) -> None:
        self._sample_rate = sample_rate
        source_rate = self.agent_sample_rate or sample_rate
        self._resampler = StreamResampler(source_rate, sample_rate)
        await self._open_socket(self.url, self._headers)
        if self.start_message is not None:
            await self._send({"sample_rate": sample_rate, **self.start_message})

    async def send_audio(self, pcm16: bytes) -> None:
        await self._send(pcm16)

    async def report_played(self, played_ms: int) -> None:
        """Nothing to send: the protocol has no truncate message."""

    async def end_input(self) -> None:
        """Nothing to send: the protocol marks the end of input by closing."""

    def describe(self) -> dict[str, object]:
        """Settings for the run record (no secrets: the URL is redacted)."""
        return {"transport": NAME, "url": redact_url(self.url),
                "agent_sample_rate": self.agent_sample_rate,
                "header_names": sorted(self._headers)}

    def _decode(self, message: str | bytes) -> AgentEvent | None:
        if isinstance(message, bytes):
            if len(message) % 2:
                return AgentFault(f"malformed audio from agent: {len(message)} bytes "
                                  "is not a whole number of PCM16 samples")
            assert self._resampler is not None
            return AudioOut(self._resampler.process_pcm16(message))
        data = parse_json_object(message, self.scrub)
        if isinstance(data, str):
            return AgentFault(data)
        kind = data.get("type")
        if kind == PcmWs.CLEAR:
            return Clear()
        if kind == PcmWs.TRANSCRIPT and isinstance(data.get("text"), str):
            role: Literal["user", "agent"] = "agent" if data.get("role") == "agent" else "user"
            return Transcript(role=role, text=data["text"], final=bool(data.get("final", True)))
        if kind == PcmWs.ERROR:
            return AgentFault(f"agent error event: {data.get('message', data)}")
        if kind == PcmWs.FORMAT:
            declared = data.get("sample_rate")
            expected = self.agent_sample_rate or self._sample_rate
            if declared != expected:
                return AgentFault(f"wrong sample rate: agent declared {declared} Hz audio, "
                                  f"expected {expected} Hz")
        return None

    async def _send(self, payload: bytes | Mapping[str, object]) -> None:
        await self._send_message(payload if isinstance(payload, bytes) else json.dumps(payload))


def _json_object(text: str, option: str) -> dict[str, object] | None:
    """Parse an option holding a JSON object (voicebench scenarios give these as maps)."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{NAME}: option {option} is not JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise InputError(f"{NAME}: option {option} must be a JSON object")
    return data
