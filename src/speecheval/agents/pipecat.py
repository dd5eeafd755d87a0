"""``pipecat``: a Pipecat bot served over its WebSocket transport with the protobuf serializer.

A Pipecat pipeline exposed with ``WebsocketServerTransport`` (or the FastAPI WebSocket
transport) and ``ProtobufFrameSerializer`` exchanges binary WebSocket messages, each one
``pipecat.Frame`` (:mod:`speecheval.agents.pipecat_frames`):

* client to bot: every user frame as ``audio`` (mono PCM16 at the session rate, which
  the bot's input transport resamples to its own);
* bot to client: ``audio`` (PCM16 at the bot's output rate, mono or interleaved
  channels, mixed to mono and resampled here), ``interruption`` (the bot was
  interrupted: drop its audio not yet played, a :class:`Clear`), ``transcription`` (what
  the bot heard the user say) and ``text`` (the bot's words) as final transcripts;
  ``message`` frames (RTVI and application messages) are ignored.

A message that is not a frame, or text on the socket, is a fault. Pipecat has no message
saying how much of a reply was played, so ``report_played`` sends nothing, and the end of
input is the close of the socket.
"""

from __future__ import annotations

import numpy as np

from ..core.redact import redact_url
from ..core.stream_resample import StreamResampler
from ._ws_transport import WebSocketTransport
from .base import AgentEvent, AgentFault, AudioOut, Clear, Transcript
from .pipecat_frames import (
    AUDIO_BYTES,
    AUDIO_CHANNELS,
    AUDIO_RATE,
    TEXT,
    MalformedFrame,
    decode,
    encode_audio,
)

NAME = "pipecat"


class PipecatTransport(WebSocketTransport):
    """Client for Pipecat bots on the WebSocket transport (see the module docstring)."""

    name = NAME

    def __init__(self, **options: str) -> None:
        from .transport_options import ConnectionOptions, parse_options  # pydantic: lazily

        super().__init__(parse_options(NAME, options, ConnectionOptions))
        self._sample_rate = 0
        self._resamplers: dict[int, StreamResampler] = {}

    async def connect(self, sample_rate: int) -> None:
        self._sample_rate = sample_rate
        await self._open_socket(self.url, None)

    async def send_audio(self, pcm16: bytes) -> None:
        await self._send_message(encode_audio(pcm16, self._sample_rate))

    async def report_played(self, played_ms: int) -> None:
        """Nothing to send: Pipecat has no truncate message."""

    async def end_input(self) -> None:
        """Nothing to send: the end of input is the close of the socket."""

    def describe(self) -> dict[str, object]:
        """Settings for the run record (no secrets: the URL is redacted)."""
        return {"transport": NAME, "url": redact_url(self.url)}

    def _decode(self, message: str | bytes) -> AgentEvent | None:
        if isinstance(message, str):
            return AgentFault(f"pipecat: text message where protobuf frames were expected: "
                              f"{self.scrub(message[:80])!r}")
        try:
            frame = decode(message)
            if frame is None or frame.kind == "message":
                return None
            if frame.kind == "interruption":
                return Clear()
            if frame.kind in ("text", "transcription"):
                text = frame.data(TEXT).decode("utf-8", errors="replace")
                return Transcript(role="agent" if frame.kind == "text" else "user",
                                  text=text, final=True)
            return self._audio(frame.data(AUDIO_BYTES), frame.integer(AUDIO_RATE),
                               frame.integer(AUDIO_CHANNELS, 1))
        except MalformedFrame as exc:
            return AgentFault(f"pipecat: malformed frame from the bot: {exc}")

    def _audio(self, pcm: bytes, rate: int, channels: int) -> AgentEvent:
        if rate <= 0 or channels <= 0:
            return AgentFault(f"pipecat: audio frame with sample_rate {rate} and "
                              f"num_channels {channels}")
        if len(pcm) % (2 * channels):
            return AgentFault(f"pipecat: audio frame of {len(pcm)} bytes is not whole PCM16 "
                              f"samples on {channels} channel(s)")
        samples = np.frombuffer(pcm, dtype="<i2").reshape(-1, channels)
        # the mean of the channels rounded half to even, as the resampler rounds: floor
        # division would pull every odd sum down, half a step of bias toward negative
        mean = samples.astype(np.int32).sum(axis=1) / channels
        mono = np.rint(mean).astype("<i2").tobytes()
        resampler = self._resamplers.get(rate)
        if resampler is None:  # one per bot rate, kept: its state spans the frames
            resampler = self._resamplers[rate] = StreamResampler(rate, self._sample_rate)
        return AudioOut(resampler.process_pcm16(mono))
