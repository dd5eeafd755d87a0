"""``native-realtime``: SGLang-Omni's native full-duplex ``/v1/realtime`` WebSocket protocol.

Full-duplex speech models (MiniCPM-o 4.5, PersonaPlex, Nemotron VoiceChat) served by
SGLang-Omni listen and speak at the same time: no server VAD, no turn commit, no
cancel. The wire protocol is a strict PCM16 subset of OpenAI Realtime's GA events with
SGLang extensions under ``sglang`` keys (learned from the SGLang-Omni sources; see
``docs/agents.md`` for the files and commits):

* every client event carries a non-empty ``event_id``; unknown fields are rejected;
* the server speaks first (``session.created``); the client sends ``session.update``
  and must wait for ``session.updated``, whose ``session.sglang.granted`` states the
  deployment's PCM rates (MiniCPM-o: 16 kHz in, 24 kHz out; PersonaPlex: 24 kHz both)
  and native unit; audio sent before that is rejected;
* ``input_audio_buffer.append`` carries base64 PCM16 plus ``sglang.seq`` (0, 1, 2, ...
  without gaps) and ``sglang.t_start_ms`` (the duration of audio already sent);
* output is ``response.output_audio.delta`` (base64 PCM16 at the granted output rate),
  with the words in ``response.output_audio_transcript.*``;
* ``sglang.input_audio.end`` ends the input, ``session.close`` ends the session; the
  server answers ``session.closed`` and closes the socket.

The runner sends user frames on absolute deadlines, so with a frame size that divides
``chunk_ms`` (80 ms, the packet size of SGLang-Omni's own client) every append leaves at
an exact multiple of 80 ms from the session start.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode, urlsplit

from ..core.errors import SystemUnderTestError
from ..core.redact import redact_url
from ..core.stream_resample import StreamResampler
from ._realtime_base import RealtimeWsTransport
from ._realtime_events import RealtimeDecoder
from ._ws import api_key_from_env
from .base import AgentEvent, AgentFault, Transcript
from .protocol_events import Native, Realtime

NAME = "native-realtime"
CLOSE_WAIT_S = 1.0  # how long close() waits for ``session.closed`` before hanging up

class NativeDecoder(RealtimeDecoder):
    """Server events of the native protocol, beyond the shared Realtime vocabulary.

    The whole call may be one response whose ``.done`` events come only after the input
    ends, when the runner no longer listens, so the agent's words are taken from the
    transcript deltas (as non-final agent transcripts). The runner also stops reading
    before it ends the input, so any ``session.closed`` seen here is the server ending
    the call on its own (context exhausted, time limit): a fault.
    """

    def decode(self, data: dict[str, Any]) -> AgentEvent | None:
        kind = data.get("type")
        if kind == Native.SESSION_CLOSED:
            return AgentFault(f"agent closed the session: {data.get('reason') or 'no reason'}")
        if kind == Realtime.AGENT_TRANSCRIPT_DELTA and isinstance(data.get("delta"), str):
            return Transcript(role="agent", text=data["delta"], final=False)
        if kind == Realtime.RESPONSE_CREATED:
            return None  # the whole call is one response: it marks no turn's reply
        return super().decode(data)


class NativeRealtimeTransport(RealtimeWsTransport):
    """Continuous-input, continuous-output client for SGLang-Omni full-duplex models."""

    name = NAME

    def __init__(self, **options: str) -> None:
        from .transport_options import NativeRealtimeOptions, parse_options  # pydantic: lazily

        opts = parse_options(NAME, options, NativeRealtimeOptions)
        super().__init__(opts)
        self.model = opts.parsed.model
        self.instructions = opts.parsed.instructions
        self.input_rate = opts.parsed.input_rate
        self.output_rate = opts.parsed.output_rate
        self.chunk_ms = opts.parsed.chunk_ms or 80
        self.api_key_env = opts.parsed.api_key_env
        self.granted: dict[str, Any] = {}
        self._to_model: StreamResampler | None = None
        self._wire_rate = 0
        self._pending = b""
        self._chunk_bytes = 0
        self._seq = 0
        self._sent_samples = 0
        self._event_count = 0
        self._faulted = False

    async def connect(self, sample_rate: int) -> None:
        """Open the socket and negotiate the session; raise SystemUnderTestError if refused
        (the socket is then closed again)."""
        key = api_key_from_env(self.api_key_env, NAME)
        headers = {} if key is None else {"Authorization": f"Bearer {key}"}
        await self._open_socket(self._connect_url(), headers)
        try:
            with self._scrubbed_errors():  # a refusal quotes the agent's error text
                await self._expect(Realtime.SESSION_CREATED)
                await self._send_event(self.session_update())
                updated = await self._expect(Realtime.SESSION_UPDATED)
                in_rate, out_rate = self._granted_rates(updated.get("session"))
        except BaseException:
            # the runner does not close a transport whose connect failed
            await asyncio.shield(super().close())
            raise
        self._wire_rate = in_rate
        self._to_model = StreamResampler(sample_rate, in_rate)
        self._chunk_bytes = 2 * (in_rate * self.chunk_ms // 1000)
        self._decoder = NativeDecoder(out_rate, sample_rate, implied_rate=out_rate)

    def session_update(self) -> dict[str, Any]:
        """No turn detection, audio output; PCM formats only where the user fixed a rate.

        SGLang-Omni rejects any format other than the deployment's exact one, so by
        default the client asks for none and adopts the rates the server grants.
        """
        audio_in: dict[str, Any] = {"turn_detection": None}
        audio: dict[str, Any] = {"input": audio_in}
        if self.input_rate:
            audio_in["format"] = {"type": "audio/pcm", "rate": self.input_rate}
        if self.output_rate:
            audio["output"] = {"format": {"type": "audio/pcm", "rate": self.output_rate}}
        session: dict[str, Any] = {"type": "realtime", "output_modalities": ["audio"],
                                   "audio": audio}
        if self.instructions:
            session["instructions"] = self.instructions
        return self._event(Realtime.SESSION_UPDATE, session=session)

    async def send_audio(self, pcm16: bytes) -> None:
        """Buffer the frame; append every complete ``chunk_ms`` chunk right away."""
        assert self._to_model is not None
        self._pending += self._to_model.process_pcm16(pcm16)
        while len(self._pending) >= self._chunk_bytes:
            chunk, self._pending = (self._pending[: self._chunk_bytes],
                                    self._pending[self._chunk_bytes :])
            await self._append_chunk(chunk)

    async def report_played(self, played_ms: int) -> None:
        """Nothing to send: a full-duplex model hears the user and stops by itself."""

    async def events(self) -> AsyncIterator[AgentEvent]:
        """The base's events; remembers a fault so that :meth:`close` just hangs up."""
        async for event in super().events():
            if isinstance(event, AgentFault):
                self._faulted = True
            yield event

    async def end_input(self) -> None:
        """Append the last partial chunk (the server pads or flushes it), then end input."""
        if self._pending:
            await self._append_chunk(self._pending)
            self._pending = b""
        await self._send_event(self._event(Native.INPUT_END))

    async def close(self) -> None:
        """``session.close``, wait up to ``CLOSE_WAIT_S`` for ``session.closed``, hang up.

        After a fault the socket is just closed: the agent is broken or gone.
        """
        if self._ws is not None and not self._faulted:
            await self._close_session(self._event(Native.SESSION_CLOSE), Native.SESSION_CLOSED,
                                      CLOSE_WAIT_S)
        await super().close()

    def describe(self) -> dict[str, object]:
        return {"transport": NAME, "url": redact_url(self.url), "model": self.model,
                "input_rate": self.input_rate, "output_rate": self.output_rate,
                "chunk_ms": self.chunk_ms, "api_key_env": self.api_key_env}

    def _connect_url(self) -> str:
        """The URL, with ``?model=`` added when given (SGLang-Omni's router selects by it)."""
        if not self.model:
            return self.url
        joiner = "&" if urlsplit(self.url).query else "?"
        return f"{self.url}{joiner}{urlencode({'model': self.model})}"

    def _event(self, kind: str, **fields: Any) -> dict[str, Any]:
        """A client event with a fresh ``event_id``: deterministic, so runs compare byte
        for byte."""
        self._event_count += 1
        return {"type": kind, "event_id": f"speecheval_{self._event_count}", **fields}

    async def _append_chunk(self, wire_pcm16: bytes) -> None:
        t_start_ms = self._sent_samples * 1000 / self._wire_rate
        await self._send_event(self._event(
            Realtime.AUDIO_APPEND, audio=base64.b64encode(wire_pcm16).decode("ascii"),
            sglang={"seq": self._seq, "t_start_ms": t_start_ms}))
        self._seq += 1
        self._sent_samples += len(wire_pcm16) // 2

    def _granted_rates(self, session: Any) -> tuple[int, int]:
        """(input, output) PCM rates of the granted session; a rate other than the one
        asked for is the agent's fault (SGLang-Omni must refuse, not substitute)."""
        extension = session.get("sglang") if isinstance(session, dict) else None
        granted = extension.get("granted") if isinstance(extension, dict) else None
        if not isinstance(granted, dict):
            raise SystemUnderTestError(f"{NAME}: session.updated has no session.sglang.granted")
        self.granted = granted
        rates = []
        for direction, asked in (("input", self.input_rate), ("output", self.output_rate)):
            fmt = granted.get(f"{direction}_audio_format")
            fmt = fmt if isinstance(fmt, dict) else {}
            rate = fmt.get("rate")
            if not isinstance(rate, int) or rate <= 0 or fmt.get("type") != "audio/pcm":
                raise SystemUnderTestError(f"{NAME}: agent granted no PCM {direction} format "
                                           f"(got {json.dumps(fmt)} in session.updated)")
            if asked and rate != asked:
                raise SystemUnderTestError(f"wrong sample rate: agent granted {rate} Hz "
                                           f"{direction} audio, {asked} Hz was asked for")
            rates.append(rate)
        return rates[0], rates[1]
