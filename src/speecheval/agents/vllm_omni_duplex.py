"""``vllm-omni-duplex``: vLLM-Omni's native duplex Realtime WebSocket endpoint.

vLLM-Omni serves full-duplex models (MiniCPM-o 4.5, PersonaPlex) through its
``vllm_omni/entrypoints/duplex`` package, read at the commits docs/agents.md pins. What
this client relies on:

* the client speaks first: its ``session.update`` opens the session, the server answers
  ``session.created`` (the session, with its capability payload) and ``session.updated``;
* the session fields are those of the server's ``DuplexSessionConfig``: ``model``,
  ``voice`` or ``ref_audio``, ``instructions``, ``response_format`` (``wav``),
  ``overlap_policy`` (``listen_only`` / ``barge_in_on_speech``),
  ``playback_commit_policy`` (``commit_all_on_done`` / ``ack_only``) and ``extra_body``,
  where ``native_duplex: true`` hands turn-taking to the model; ``turn_detection`` is
  null, so no server VAD decides for it;
* ``input_audio_buffer.append`` carries base64 PCM16 with its ``format`` and
  ``sample_rate_hz``; replies come as ``response.audio.delta`` whose ``delta`` is a whole
  base64 WAV file per chunk (see :mod:`speecheval.agents.wav_chunks`);
* the server's turn events (``response.created`` / ``speak`` / ``listen`` / ``done``,
  ``overlap.decision``, speech started/stopped, ``playback.acknowledged``) are kept in
  the trace as :class:`~speecheval.agents.base.ServerNote`;
* ``playback.ack`` with ``response_id``, ``played_ms`` and ``committed_ms`` tells the
  server what the client played; this client plays as a client's speaker would (see
  :mod:`speecheval.agents._playback_acks`) and acknowledges every ``ack_interval_ms``.

Capabilities the server denies are refused before a run starts (:meth:`check_server`):
barge-in when ``supports_barge_in`` is false, several sessions at once when
``supports_multi_session`` is false.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed

from ..core.errors import InputError, SystemUnderTestError
from ..core.redact import redact_url
from ..core.stream_resample import StreamResampler
from ._playback_acks import PlaybackLedger
from ._realtime_base import RealtimeWsTransport
from ._realtime_events import error_text
from ._ws import api_key_from_env, parse_json_object
from .base import AgentEvent, AgentFault, AudioOut, Clear, ServerMark, ServerNote, Transcript
from .protocol_events import VllmDuplex
from .wav_chunks import BadChunk, decode_wav_chunk

NAME = "vllm-omni-duplex"
CLOSE_WAIT_S = 1.0
# server events kept in the trace, with the fields of each worth keeping
NOTED: dict[str, tuple[str, ...]] = {
    VllmDuplex.RESPONSE_CREATED: ("response_id",),
    VllmDuplex.RESPONSE_SPEAK: ("response_id",),
    VllmDuplex.RESPONSE_LISTEN: ("response_id", "epoch"),
    VllmDuplex.SPEECH_STARTED: ("audio_start_ms", "item_id"),
    VllmDuplex.SPEECH_STOPPED: ("audio_end_ms", "item_id"),
    VllmDuplex.INPUT_COMMITTED: ("item_id",),
    VllmDuplex.OVERLAP_DECISION: ("policy", "action", "reason"),
    VllmDuplex.OUTPUT_CLEARED: ("response_id",),
}
# capability -> what asks for it, for the refusal message
BARGE_IN = "supports_barge_in"
MULTI_SESSION = "supports_multi_session"


def _scalar(value: Any) -> str | int | float | bool | None:
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


def session_capabilities(created: dict[str, Any]) -> dict[str, Any] | None:
    """The capability payload of ``session.created``: ``session.capabilities`` or, as
    some builds put it, ``capabilities`` beside the session; None when neither is there."""
    session = created.get("session")
    for holder in (session if isinstance(session, dict) else {}, created):
        found = holder.get("capabilities")
        if isinstance(found, dict):
            return dict(found)
    return None


def refusal(capabilities: dict[str, Any] | None, overlap_policy: str,
            concurrency: int) -> str | None:
    """Why the server cannot run these settings, naming the capability; None if it can.

    Only a capability the server states as false refuses: a server that sends no payload
    is recorded as such and tried.
    """
    if capabilities is None:
        return None
    if overlap_policy == "barge_in_on_speech" and capabilities.get(BARGE_IN) is False:
        return (f"the server does not support barge-in ({BARGE_IN} is false); use "
                "-o overlap_policy=listen_only")
    if concurrency > 1 and capabilities.get(MULTI_SESSION) is False:
        return (f"the server does not support several sessions at once ({MULTI_SESSION} "
                f"is false); use --concurrency 1, not {concurrency}")
    return None


def playback_ack(response_id: str, played_ms: int) -> dict[str, Any]:
    """The acknowledgement of a client that commits what it played; the item is the
    reply's own (``item_<response_id>``, the server's naming of a response's item)."""
    return {"type": VllmDuplex.PLAYBACK_ACK, "response_id": response_id,
            "item_id": f"item_{response_id}", "played_ms": played_ms,
            "committed_ms": played_ms}


def declared_output_rate(session: Any) -> int | None:
    """``audio.output.format.rate`` of a session object, where it states one."""
    audio = session.get("audio") if isinstance(session, dict) else None
    output = audio.get("output") if isinstance(audio, dict) else None
    fmt = output.get("format") if isinstance(output, dict) else None
    rate = fmt.get("rate") if isinstance(fmt, dict) else None
    return rate if isinstance(rate, int) and rate > 0 else None


class VllmOmniDuplexTransport(RealtimeWsTransport):
    """Continuous-input client for vLLM-Omni's duplex endpoint, acknowledging playback."""

    name = NAME

    def __init__(self, **options: str) -> None:
        from .transport_options import VllmOmniDuplexOptions, parse_options  # pydantic: lazily

        opts = parse_options(NAME, options, VllmOmniDuplexOptions)
        super().__init__(opts)
        parsed = opts.parsed
        self.model = parsed.model
        self.voice = parsed.voice
        self.ref_audio = parsed.ref_audio
        self.instructions = parsed.instructions
        self.overlap_policy = parsed.overlap_policy
        self.playback_commit_policy = parsed.playback_commit_policy
        self.input_rate = parsed.input_rate
        self.chunk_ms = parsed.chunk_ms or 80
        self.ack_interval_s = (parsed.ack_interval_ms or 200) / 1000
        self.api_key_env = parsed.api_key_env
        if self.voice and self.ref_audio:
            raise InputError(f"{NAME}: give voice or ref_audio, not both")
        self.capabilities: dict[str, Any] | None = None
        self.server_check: str = "not run"
        self._session_rate = 0
        self._wire_rate = 0
        self._to_model: StreamResampler | None = None
        self._from_model: StreamResampler | None = None
        self._declared_rate: int | None = None
        self._output_rate = 0  # the rate of the first reply chunk; every chunk must keep it
        self._pending = b""
        self._chunk_bytes = 0
        self._ledger = PlaybackLedger()
        self._replies: set[str] = set()  # responses announced by response.created
        self._acker: asyncio.Task[None] | None = None
        self._faulted = False

    # -- before the run ---------------------------------------------------------------

    def check_server(self, concurrency: int) -> None:
        """Open one session, read the capabilities, close; refuse what the server denies.

        A server that cannot be reached is not refused here: each sample then records
        that as its fault, as for every transport.
        """
        try:
            self.capabilities = asyncio.run(self._read_capabilities())
            self.server_check = "ok"
        except (SystemUnderTestError, OSError) as exc:
            self.server_check = self.scrub(f"could not read capabilities: {exc}")
            return
        reason = refusal(self.capabilities, self.overlap_policy, concurrency)
        if reason is not None:
            raise InputError(f"{NAME}: {reason}")

    async def _read_capabilities(self) -> dict[str, Any] | None:
        try:
            created = await self._handshake(16000)
        finally:
            await self._hang_up()
            self._ws, self._closing = None, False  # the same object may run a session next
        return session_capabilities(created)

    # -- a session ----------------------------------------------------------------------

    async def connect(self, sample_rate: int) -> None:
        """Open the socket and the session; refuse a server that denies the settings."""
        try:
            created = await self._handshake(sample_rate)
            self.capabilities = session_capabilities(created)
            self._declared_rate = declared_output_rate(created.get("session"))
            reason = refusal(self.capabilities, self.overlap_policy, 1)
            if reason is not None:
                raise SystemUnderTestError(f"{NAME}: {reason}")
        except BaseException:
            await asyncio.shield(self._hang_up())
            raise
        self._session_rate = sample_rate
        self._wire_rate = self.input_rate or sample_rate
        self._to_model = StreamResampler(sample_rate, self._wire_rate)
        self._chunk_bytes = 2 * (self._wire_rate * self.chunk_ms // 1000)
        if self._acks_wanted():
            self._acker = asyncio.create_task(self._acknowledge_every_interval())

    async def _handshake(self, sample_rate: int) -> dict[str, Any]:
        key = api_key_from_env(self.api_key_env, NAME)
        headers = {} if key is None else {"Authorization": f"Bearer {key}"}
        await self._open_socket(self.url, headers)
        with self._scrubbed_errors():
            await self._send_event(self.session_update(self.input_rate or sample_rate))
            return await self._expect(VllmDuplex.SESSION_CREATED)

    def session_update(self, input_rate: int) -> dict[str, Any]:
        """The session the client asks for; fields left empty are the server's defaults."""
        session: dict[str, Any] = {
            "modalities": ["text", "audio"], "response_format": "wav",
            "input_audio_format": "pcm16", "turn_detection": None,
            "audio": {"input": {"format": {"type": "audio/pcm", "rate": input_rate},
                                "sample_rate_hz": input_rate}},
            "overlap_policy": self.overlap_policy,
            "extra_body": {"native_duplex": True},
        }
        for key, value in (("model", self.model), ("voice", self.voice),
                           ("ref_audio", self._ref_audio_field()),
                           ("instructions", self.instructions),
                           ("playback_commit_policy", self.playback_commit_policy)):
            if value:
                session[key] = value
        return {"type": VllmDuplex.SESSION_UPDATE, "session": session}

    def _ref_audio_field(self) -> str:
        """``ref_audio`` as sent: a local file becomes a base64 WAV data URL, anything else
        (a URL the server can fetch) goes as written."""
        path = Path(self.ref_audio) if self.ref_audio else None
        if path is None or not path.is_file():
            return self.ref_audio
        return "data:audio/wav;base64," + base64.b64encode(path.read_bytes()).decode("ascii")

    def _acks_wanted(self) -> bool:
        """Acknowledge unless the server says it takes none."""
        return not (self.capabilities and self.capabilities.get("supports_playback_ack") is False)

    async def send_audio(self, pcm16: bytes) -> None:
        """Buffer the frame; append every complete ``chunk_ms`` chunk right away."""
        assert self._to_model is not None
        self._pending += self._to_model.process_pcm16(pcm16)
        while len(self._pending) >= self._chunk_bytes:
            chunk, self._pending = (self._pending[: self._chunk_bytes],
                                    self._pending[self._chunk_bytes :])
            await self._append_chunk(chunk)

    async def _append_chunk(self, wire_pcm16: bytes) -> None:
        await self._send_event({"type": VllmDuplex.AUDIO_APPEND,
                                "audio": base64.b64encode(wire_pcm16).decode("ascii"),
                                "format": "pcm16", "sample_rate_hz": self._wire_rate})

    async def end_input(self) -> None:
        """Append the last partial chunk; the model keeps the turn-taking (no commit)."""
        if self._pending:
            await self._append_chunk(self._pending)
            self._pending = b""

    async def report_played(self, played_ms: int) -> None:
        """Nothing more to send: acknowledgements follow this client's own playout."""

    async def events(self) -> AsyncIterator[AgentEvent]:
        async for event in super().events():
            if isinstance(event, AgentFault):
                self._faulted = True
            yield event

    def _decode(self, message: str | bytes) -> AgentEvent | None:
        if isinstance(message, bytes):
            return AgentFault(f"{NAME}: agent sent a binary message ({len(message)} bytes); "
                              "this protocol carries audio as base64 WAV in JSON")
        data = parse_json_object(message, self.scrub)
        if isinstance(data, str):
            return AgentFault(data)
        return self.decode_event(data)

    def decode_event(self, data: dict[str, Any]) -> AgentEvent | None:
        """One server event as an agent event (None: nothing the runner needs)."""
        kind = data.get("type")
        now = asyncio.get_running_loop().time()
        if kind == VllmDuplex.AUDIO_DELTA:
            return self._audio(data, now)
        if kind == VllmDuplex.ERROR:
            return AgentFault(f"agent error event: {error_text(data.get('error'))}")
        if kind == VllmDuplex.SESSION_CLOSED:
            return AgentFault("agent closed the session")
        if kind == VllmDuplex.TRANSCRIPT_DELTA and isinstance(data.get("delta"), str):
            return Transcript(role="agent", text=data["delta"], final=False) \
                if data["delta"] else None
        if kind == VllmDuplex.RESPONSE_DONE:
            return self._response_done(data)
        if kind == VllmDuplex.OUTPUT_CLEARED:
            self._ledger.clear(now)
            return Clear()
        if kind == VllmDuplex.PLAYBACK_ACKNOWLEDGED:
            inner = data.get("event")
            event = inner if isinstance(inner, dict) else data
            return ServerNote(kind, tuple((key, _scalar(event.get(key))) for key in
                                          ("response_id", "played_ms", "committed_ms")))
        if kind == VllmDuplex.RESPONSE_CREATED and isinstance(data.get("response_id"), str):
            self._replies.add(data["response_id"])
        if kind == VllmDuplex.SPEECH_STOPPED:
            return ServerMark("speech_stopped")
        if kind in NOTED:
            return ServerNote(kind, tuple((key, _scalar(data.get(key)))
                                          for key in NOTED[kind]))
        return None

    def _audio(self, data: dict[str, Any], now: float) -> AgentEvent:
        try:
            rate, wire = decode_wav_chunk(str(data.get("delta", "")))
        except BadChunk as exc:
            return AgentFault(f"malformed audio delta from agent: {exc}")
        stated = data.get("sample_rate_hz")
        if isinstance(stated, int) and stated != rate:
            return AgentFault(f"wrong sample rate: audio delta states {stated} Hz but its WAV "
                              f"header says {rate} Hz")
        if self._declared_rate is not None and rate != self._declared_rate:
            return AgentFault(f"wrong sample rate: agent audio is {rate} Hz, its session "
                              f"declared {self._declared_rate} Hz output")
        if self._from_model is None:
            self._output_rate = rate
            self._from_model = StreamResampler(rate, self._session_rate)
        elif rate != self._output_rate:
            return AgentFault(f"wrong sample rate: agent audio changed from "
                              f"{self._output_rate} Hz to {rate} Hz within the session")
        response_id = data.get("response_id")
        self._ledger.audio(response_id if response_id in self._replies else None,
                           len(wire) / 2 / rate, now)
        return AudioOut(self._from_model.process_pcm16(wire))

    def _response_done(self, data: dict[str, Any]) -> AgentEvent:
        given = data.get("response")
        response: dict[str, Any] = given if isinstance(given, dict) else {}
        response_id = data.get("response_id") or response.get("id")
        if response_id in self._replies:
            self._ledger.finish(str(response_id))
        details = response.get("status_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        metadata = response.get("metadata")
        playback = metadata.get("playback") if isinstance(metadata, dict) else None
        cursor = playback if isinstance(playback, dict) else {}
        return ServerNote(VllmDuplex.RESPONSE_DONE, (
            ("response_id", _scalar(response_id)), ("status", _scalar(response.get("status"))),
            ("reason", _scalar(reason)), ("sent_ms", _scalar(cursor.get("sent_ms"))),
            ("played_ms", _scalar(cursor.get("played_ms"))),
            ("committed_ms", _scalar(cursor.get("committed_ms")))))

    async def _acknowledge_every_interval(self) -> None:
        """Send the due acknowledgements every ``ack_interval_s`` until closed."""
        with contextlib.suppress(SystemUnderTestError, ConnectionClosed):
            while True:
                await asyncio.sleep(self.ack_interval_s)
                await self._send_acks()

    async def _send_acks(self) -> None:
        for response_id, played_ms in self._ledger.due(asyncio.get_running_loop().time()):
            await self._send_event(playback_ack(response_id, played_ms))

    async def close(self) -> None:
        """Last acknowledgements, ``session.close``, up to ``CLOSE_WAIT_S`` for
        ``session.closed``, hang up; after a fault just hang up."""
        if self._ws is not None and not self._faulted:
            with contextlib.suppress(SystemUnderTestError, ConnectionClosed, TimeoutError):
                async with asyncio.timeout(CLOSE_WAIT_S):
                    await self._send_acks()
            await self._close_session({"type": VllmDuplex.SESSION_CLOSE},
                                      VllmDuplex.SESSION_CLOSED, CLOSE_WAIT_S)
        await self._hang_up()

    async def _hang_up(self) -> None:
        if self._acker is not None:
            self._acker.cancel()
            await asyncio.gather(self._acker, return_exceptions=True)
            self._acker = None
        await super().close()

    def describe(self) -> dict[str, object]:
        return {"transport": NAME, "url": redact_url(self.url), "model": self.model,
                "voice": self.voice, "ref_audio": bool(self.ref_audio),
                "overlap_policy": self.overlap_policy,
                "playback_commit_policy": self.playback_commit_policy or None,
                "input_rate": self.input_rate, "chunk_ms": self.chunk_ms,
                "ack_interval_ms": round(self.ack_interval_s * 1000),
                "api_key_env": self.api_key_env, "server_check": self.server_check,
                "capabilities": self.capabilities}
