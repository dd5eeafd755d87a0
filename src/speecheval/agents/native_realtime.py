"""``native-realtime``: a native full-duplex ``/v1/realtime`` client (SGLang-Omni style).

Full-duplex speech models served behind an OpenAI-Realtime-style ``/v1/realtime``
endpoint listen and speak at the same time: there is no server VAD and no turn commit.
The client sends ``session.update`` (PCM16 at the model's rate, ``turn_detection``
null), then one ``input_audio_buffer.append`` per ``chunk_ms`` (80 ms by default) of
user audio. The runner sends user frames on absolute deadlines, so with a frame size
that divides ``chunk_ms`` every append leaves at an exact multiple of 80 ms from the
session start. Output arrives continuously as ``response.output_audio.delta`` (or the
beta ``response.audio.delta``). At the end the client flushes the last partial chunk,
sends the end-of-input event (``input_audio_buffer.end`` by default) and closes.
"""

from __future__ import annotations

from typing import Any

from ..core.stream_resample import StreamResampler
from ._realtime_base import RealtimeWsTransport
from ._realtime_events import RealtimeDecoder
from ._ws import Options, api_key_from_env, redact_url
from ._ws_transport import CONNECTION_DEFAULTS

NAME = "native-realtime"

DEFAULTS: dict[str, str] = {
    **CONNECTION_DEFAULTS,
    "model": "",
    "model_sample_rate": "",
    "chunk_ms": "80",
    "end_event": "input_audio_buffer.end",
    "api_key_env": "",
}


class NativeRealtimeTransport(RealtimeWsTransport):
    """Continuous-input, continuous-output client for full-duplex models."""

    name = NAME

    def __init__(self, **options: str) -> None:
        opts = Options(NAME, options, DEFAULTS)
        super().__init__(opts)
        self.model = opts.text("model")
        self.model_sample_rate = opts.integer("model_sample_rate")
        self.chunk_ms = opts.integer("chunk_ms") or 80
        self.end_event = opts.required("end_event")
        self.api_key_env = opts.text("api_key_env")
        self._to_model: StreamResampler | None = None
        self._pending = b""
        self._chunk_bytes = 0

    async def connect(self, sample_rate: int) -> None:
        key = api_key_from_env(self.api_key_env, NAME)
        headers = {} if key is None else {"Authorization": f"Bearer {key}"}
        wire_rate = self.model_sample_rate or sample_rate
        self._to_model = StreamResampler(sample_rate, wire_rate)
        self._chunk_bytes = 2 * wire_rate * self.chunk_ms // 1000
        decoder = RealtimeDecoder(wire_rate, sample_rate, implied_rate=wire_rate)
        await self._open(self.url, headers, decoder, self.session_update(wire_rate))

    def session_update(self, wire_rate: int) -> dict[str, Any]:
        """Ask for PCM16 at ``wire_rate`` both ways and no turn detection."""
        session: dict[str, Any] = {"input_audio_format": "pcm16", "output_audio_format": "pcm16",
                                   "sample_rate": wire_rate, "turn_detection": None}
        if self.model:
            session["model"] = self.model
        return {"type": "session.update", "session": session}

    async def send_audio(self, pcm16: bytes) -> None:
        """Buffer the frame; append every complete ``chunk_ms`` chunk right away."""
        assert self._to_model is not None
        self._pending += self._to_model.process_pcm16(pcm16)
        while len(self._pending) >= self._chunk_bytes:
            chunk, self._pending = (self._pending[: self._chunk_bytes],
                                    self._pending[self._chunk_bytes :])
            await self._append(chunk)

    async def report_played(self, played_ms: int) -> None:
        """Nothing to send: a full-duplex model hears the user and stops by itself."""

    async def end_input(self) -> None:
        if self._pending:
            await self._append(self._pending)
            self._pending = b""
        await self._send_event({"type": self.end_event})

    def describe(self) -> dict[str, object]:
        return {"transport": NAME, "url": redact_url(self.url), "model": self.model,
                "model_sample_rate": self.model_sample_rate, "chunk_ms": self.chunk_ms,
                "end_event": self.end_event, "api_key_env": self.api_key_env}
