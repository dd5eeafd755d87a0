"""``openai-realtime``: the OpenAI Realtime WebSocket API, GA or beta event names.

The client asks for server VAD and 24 kHz PCM16 both ways (resampled from and to the
session rate), streams ``input_audio_buffer.append`` events, and maps the server's
events to agent events: ``response.output_audio.delta`` (beta ``response.audio.delta``)
to audio, ``input_audio_buffer.speech_started`` to :class:`SpeechStarted`, the input
transcription's ``completed`` event to user transcripts for WER, ``error`` to a fault.

On a barge-in the runner drops the unplayed audio and calls :meth:`report_played`; the
client then sends ``conversation.item.truncate`` with the milliseconds of that reply
the user actually heard, as a phone client would, so the model's context matches.

The API key is read from the environment variable named by ``api_key_env`` (default
``OPENAI_API_KEY``) when connecting, placed in the ``Authorization`` header, and not
kept on the object, so it cannot reach a describe(), an event or a report.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit

from ..core.redact import redact_url
from ..core.stream_resample import StreamResampler
from ._realtime_base import RealtimeWsTransport
from ._realtime_events import RealtimeDecoder
from ._ws import api_key_from_env
from .protocol_events import Realtime

NAME = "openai-realtime"
WIRE_RATE = 24000  # the API's PCM16 rate

class OpenAIRealtimeTransport(RealtimeWsTransport):
    """OpenAI Realtime client with server VAD, transcripts and truncate on barge-in."""

    name = NAME

    def __init__(self, **options: str) -> None:
        from .transport_options import OpenAIRealtimeOptions, parse_options  # pydantic: lazily

        opts = parse_options(NAME, options, OpenAIRealtimeOptions)
        super().__init__(opts)
        parsed = opts.parsed
        self.model = parsed.model
        self.api_key_env = parsed.api_key_env
        self.api = parsed.api
        self.voice = parsed.voice
        self.instructions = parsed.instructions
        self.transcription_model = parsed.transcription_model
        self.turn_detection: dict[str, Any] = {
            "type": "server_vad",
            "threshold": parsed.vad_threshold,
            "prefix_padding_ms": int(parsed.vad_prefix_padding_ms),
            "silence_duration_ms": int(parsed.vad_silence_duration_ms),
        }
        self._upsampler: StreamResampler | None = None
        self._truncated: set[tuple[str, int]] = set()

    async def connect(self, sample_rate: int) -> None:
        key = api_key_from_env(self.api_key_env, NAME)
        headers = {} if key is None else {"Authorization": f"Bearer {key}"}
        if self.api == "beta":
            headers["OpenAI-Beta"] = "realtime=v1"
        self._upsampler = StreamResampler(sample_rate, WIRE_RATE)
        decoder = RealtimeDecoder(WIRE_RATE, sample_rate, implied_rate=WIRE_RATE)
        await self._open(self._connect_url(), headers, decoder, self.session_update())

    def session_update(self) -> dict[str, Any]:
        """The ``session.update`` event in the chosen API's spelling."""
        transcription = ({"model": self.transcription_model}
                         if self.transcription_model else None)
        if self.api == "beta":
            session: dict[str, Any] = {
                "modalities": ["audio", "text"], "voice": self.voice,
                "input_audio_format": "pcm16", "output_audio_format": "pcm16",
                "turn_detection": self.turn_detection,
                "input_audio_transcription": transcription,
            }
        else:
            session = {
                "type": "realtime", "model": self.model, "output_modalities": ["audio"],
                "audio": {
                    "input": {"format": {"type": "audio/pcm", "rate": WIRE_RATE},
                              "turn_detection": self.turn_detection,
                              "transcription": transcription},
                    "output": {"format": {"type": "audio/pcm", "rate": WIRE_RATE},
                               "voice": self.voice},
                },
            }
        if self.instructions:
            session["instructions"] = self.instructions
        return {"type": Realtime.SESSION_UPDATE, "session": session}

    async def send_audio(self, pcm16: bytes) -> None:
        assert self._upsampler is not None
        await self._append(self._upsampler.process_pcm16(pcm16))

    async def report_played(self, played_ms: int) -> None:
        """Send ``conversation.item.truncate`` for the reply the playout position is in."""
        assert self._decoder is not None
        point = self._decoder.truncate_point(played_ms)
        if point is None or point in self._truncated:
            return
        self._truncated.add(point)
        item_id, audio_end_ms = point
        self._decoder.mark_truncated(item_id)
        await self._send_event({"type": Realtime.ITEM_TRUNCATE, "item_id": item_id,
                                "content_index": 0, "audio_end_ms": audio_end_ms})

    async def end_input(self) -> None:
        """Nothing to send: with server VAD the server commits input turns itself."""

    def describe(self) -> dict[str, object]:
        """Settings for the run record: the key's variable name, never the key."""
        return {"transport": NAME, "url": redact_url(self.url), "model": self.model,
                "api": self.api, "voice": self.voice, "api_key_env": self.api_key_env,
                "transcription_model": self.transcription_model,
                "turn_detection": self.turn_detection}

    def _connect_url(self) -> str:
        if not self.model or "model=" in (urlsplit(self.url).query or ""):
            return self.url
        joiner = "&" if urlsplit(self.url).query else "?"
        return f"{self.url}{joiner}{urlencode({'model': self.model})}"
