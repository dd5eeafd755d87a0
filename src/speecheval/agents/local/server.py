"""Local reference agents on 127.0.0.1, speaking the three wire protocols.

``kind`` is ``turn`` (replies after a silence, can be interrupted) or ``duplex``
(continuous output, for ``native-realtime``: SGLang-Omni's full-duplex protocol, with
the server's checks on every client event, so a client that breaks it is refused).
``protocol`` is ``pcm-websocket``, ``openai-realtime`` or ``native-realtime``. Fault
modes (option ``fault``) make the agent misbehave ``fault_after_ms`` of heard audio into
the session, so tests and demos can check that every failure ends as a recorded fault
with a reason:

``disconnect``   drop the TCP connection without a close frame;
``malformed``    send a text message that is not JSON;
``error``        send the protocol's error event;
``stall``        stop reading and writing, keeping the connection open;
``wrong-rate``   declare and send audio at twice the expected sample rate (native: grant
                 twice the output rate the client asked for, or the configured one).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import errno
import json
import math
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from ...core import peer_json
from ...core.errors import InputError
from ..protocol_events import Native, PcmWs, Realtime
from ..ws_server import LoopbackServer
from .policy import Action, Pacing, SessionPolicy, TurnPolicy, TurnSettings
from .voice import reply_audio

KINDS = ("turn", "duplex")
# the protocols every local agent serves (this one and the cascade agent); this one also
# serves vLLM-Omni's duplex schema
COMMON_PROTOCOLS = ("pcm-websocket", "openai-realtime", "native-realtime")
PROTOCOLS = (*COMMON_PROTOCOLS, "vllm-omni-duplex")
FaultMode = Literal["", "disconnect", "malformed", "error", "stall", "wrong-rate"]
FAULTS: tuple[str, ...] = get_args(FaultMode)
OPENAI_RATE = 24000
BURST_DELTA_MS = 100
NATIVE_MODEL = "speecheval-local-duplex"
NATIVE_UNIT_MS = 80
NATIVE_RESPONSE = "resp_local_0"
NATIVE_ITEM = "item_local_0"
# client events of SGLang-Omni's native protocol and the fields each may carry
NATIVE_FIELDS: dict[str, set[str]] = {
    Realtime.SESSION_UPDATE: {"session"},
    Realtime.AUDIO_APPEND: {"audio", "sglang"},
    Native.INPUT_END: set(),
    Native.SESSION_CLOSE: set(),
}
NATIVE_SESSION_FIELDS = {"type", "model", "instructions", "output_modalities", "audio", "sglang"}


def client_event(message: str) -> dict[str, Any] | str:
    """A client's JSON event, or why it is not one: the message of the error event the
    agent answers with, as a real server does, before it reads on. The parse is bounded
    (:mod:`speecheval.core.peer_json`): a client's deep or huge message must not end the
    connection with an exception in the handler.

    >>> client_event('{"type": "session.update"}'), client_event("[" * 100 + "]" * 100)
    ({'type': 'session.update'}, 'event JSON nested deeper than 64 levels')
    """
    try:
        data = peer_json.loads(message)
    except peer_json.PeerJSONLimit as exc:
        return f"event JSON {exc.msg}"
    except json.JSONDecodeError:
        return "invalid JSON"
    if not isinstance(data, dict):
        return "event must be a JSON object"
    return data


@dataclass
class AgentConfig:
    """Parsed options of a local agent."""

    kind: str
    protocol: str
    sample_rate: int
    output_rate: int | None
    settings: TurnSettings
    reply_texts: list[str]
    reply_ms: int | None
    voice: str
    transcripts: list[str]
    pacing: Pacing
    fault: str
    fault_after_ms: int
    echo_request: bool = False
    deny: tuple[str, ...] = ()  # vllm-omni-duplex: capabilities stated false
    playback_commit_policy: str = ""  # vllm-omni-duplex: the server's default

    @classmethod
    def parse(cls, kind: str, protocol: str, options: Mapping[str, str]) -> AgentConfig:
        where = f"local agent ({kind}, {protocol})"
        if kind not in KINDS:
            raise InputError(f"local agent kind must be one of {', '.join(KINDS)}, got {kind!r}")
        if protocol not in PROTOCOLS:
            raise InputError(f"local agent protocol must be one of {', '.join(PROTOCOLS)}, "
                             f"got {protocol!r}")
        allowed = {("turn", "pcm-websocket"), ("turn", "openai-realtime"),
                   ("duplex", "native-realtime"), ("duplex", "vllm-omni-duplex")}
        if (kind, protocol) not in allowed:
            raise InputError(f"{where}: this combination is not available; use turn with "
                             "pcm-websocket or openai-realtime, duplex with native-realtime "
                             "or vllm-omni-duplex")
        from .options import parse_options  # pydantic only when a local agent starts

        opts = parse_options(where, options)
        if opts.output_rate is not None and kind != "duplex":
            raise InputError(f"{where}: output_rate is for the duplex protocols only")
        if (opts.deny or opts.playback_commit_policy) and protocol != "vllm-omni-duplex":
            raise InputError(f"{where}: deny and playback_commit_policy are for "
                             "vllm-omni-duplex only")
        if opts.transcripts and protocol == "native-realtime":
            raise InputError(f"{where}: transcripts are not part of the native protocol "
                             "(SGLang-Omni sends no user transcripts)")
        pacings: dict[str, Pacing] = {"pcm-websocket": "paced", "openai-realtime": "burst",
                                      "native-realtime": "duplex",
                                      "vllm-omni-duplex": "duplex"}
        settings = TurnSettings(
            threshold_db=opts.threshold_db, endpoint_silence_ms=opts.endpoint_silence_ms,
            response_delay_ms=opts.response_delay_ms, barge_in_min_ms=opts.barge_in_min_ms,
            interrupt_reaction_ms=opts.interrupt_reaction_ms, interruptible=opts.interruptible)
        return cls(kind=kind, protocol=protocol, sample_rate=opts.sample_rate,
                   output_rate=opts.output_rate, settings=settings,
                   reply_texts=list(opts.reply_text), reply_ms=opts.reply_ms, voice=opts.voice,
                   transcripts=list(opts.transcripts), pacing=opts.pacing or pacings[protocol],
                   fault=opts.fault, fault_after_ms=opts.fault_after_ms,
                   echo_request=opts.echo_request, deny=opts.deny,
                   playback_commit_policy=opts.playback_commit_policy)


@dataclass
class AgentLog:
    """What the agent received, for tests: control events and whether a key came along."""

    controls: list[dict[str, Any]] = field(default_factory=list)
    appends: list[tuple[float, int]] = field(default_factory=list)  # (loop time, bytes)
    append_meta: list[dict[str, Any]] = field(default_factory=list)  # native: event_id, sglang
    rejections: list[dict[str, Any]] = field(default_factory=list)  # native: errors sent
    headers: list[dict[str, str]] = field(default_factory=list)  # without Authorization
    connections: int = 0
    paths: list[str] = field(default_factory=list)  # request path and query, per connection
    authorized: list[bool] = field(default_factory=list)


class ProtocolServer(LoopbackServer):
    """Serves one of the three wire protocols on 127.0.0.1; what the agent says is decided
    by the policy :meth:`new_policy` makes for each session (the seam other agents, such
    as the cascade agent, plug into)."""

    def __init__(self, config: AgentConfig, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.config = config
        self.log = AgentLog()

    def _listen_error(self, exc: OSError) -> InputError:
        if exc.errno == errno.EADDRINUSE:
            return InputError(f"port {self.port} is already in use on {self.host}; choose "
                              "another --port, or --port 0 for a free one")
        return super()._listen_error(exc)

    def _url_path(self) -> str:
        return "/v1/realtime" if self.config.protocol != "pcm-websocket" else ""

    @abstractmethod
    def new_policy(self, session: _AgentSession, rate: int, out_rate: int) -> SessionPolicy:
        """The policy of one session hearing at ``rate`` and speaking at ``out_rate``; it
        may also send actions later through ``session.act`` (a policy with its own clock)."""

    async def _handle(self, ws: ServerConnection) -> None:
        self.log.connections += 1
        headers = ws.request.headers if ws.request is not None else None
        self.log.paths.append(ws.request.path if ws.request is not None else "")
        self.log.authorized.append(bool(headers and headers.get_all("Authorization")))
        self.log.headers.append({} if headers is None else {
            name: value for name, value in headers.raw_items()
            if name.lower() != "authorization"})
        session = SESSIONS[self.config.protocol](self, ws)
        try:
            with contextlib.suppress(ConnectionClosed):
                await session.run()
        finally:
            session.stop_policy()


class LocalAgentServer(ProtocolServer):
    """A running local agent: ``async with LocalAgentServer(...) as agent: agent.url``."""

    def __init__(self, kind: str, protocol: str, options: Mapping[str, str] | None = None,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(AgentConfig.parse(kind, protocol, dict(options or {})), host, port)
        self._replies: dict[int, list[np.ndarray[Any, np.dtype[np.int16]]]] = {}

    def new_policy(self, session: _AgentSession, rate: int, out_rate: int) -> SessionPolicy:
        cfg = self.config
        return TurnPolicy(rate, cfg.settings, self.replies(out_rate), cfg.transcripts,
                          cfg.pacing, out_rate=out_rate)

    def replies(self, rate: int) -> list[np.ndarray[Any, np.dtype[np.int16]]]:
        """Reply audio at ``rate``, rendered once per rate."""
        if rate not in self._replies:
            cfg = self.config
            self._replies[rate] = [reply_audio(text, rate, cfg.voice, cfg.reply_ms)
                                   for text in cfg.reply_texts]
        return self._replies[rate]


class _AgentSession:
    """One connection: decode input, run the policy, encode actions, inject faults."""

    def __init__(self, server: ProtocolServer, ws: ServerConnection) -> None:
        self.server = server
        self.config = server.config
        self.ws = ws
        self.rate = self.config.sample_rate
        self.policy: SessionPolicy | None = None
        self.fault_done = False

    def start_policy(self, rate: int) -> None:
        self.rate = rate
        out_rate = rate * 2 if self.config.fault == "wrong-rate" else rate
        self.replace_policy(self.server.new_policy(self, rate, out_rate))

    def replace_policy(self, policy: SessionPolicy) -> None:
        self.stop_policy()
        self.policy = policy

    def stop_policy(self) -> None:
        """Stop what the policy runs in the background (the session ended or restarted)."""
        if self.policy is not None:
            self.policy.close()

    async def hear(self, pcm: np.ndarray[Any, np.dtype[np.int16]]) -> bool:
        """Run the policy on heard audio; return False once a fault ended the session."""
        assert self.policy is not None
        actions = self.policy.feed(pcm)
        if (self.config.fault and self.config.fault != "wrong-rate"
                and self.policy.heard_ms >= self.config.fault_after_ms):
            await self.inject_fault()
            return False
        await self.act(actions)
        return True

    async def inject_fault(self) -> None:
        fault = self.config.fault
        if fault == "disconnect":
            self.ws.transport.abort()
        elif fault == "malformed":
            await self.ws.send("{this is not json")
        elif fault == "error":
            await self.ws.send(json.dumps(self.error_event()))
        elif fault == "stall":
            await self.ws.wait_closed()

    def error_event(self) -> dict[str, Any]:
        return {"type": Realtime.ERROR, "error": {"type": "server_error", "code": "simulated",
                                           "message": self.failure_message()}}

    def failure_message(self) -> str:
        """The ``error`` fault's message; with ``echo_request`` it quotes the request back
        (path with query, every header including Authorization), as careless servers do:
        the client must scrub it before it reaches a report."""
        request = self.ws.request
        if not self.config.echo_request or request is None:
            return "simulated agent failure"
        headers = "; ".join(f"{name}: {value}" for name, value in request.headers.raw_items())
        return f"simulated agent failure for request {request.path} ({headers})"

    async def run(self) -> None:
        raise NotImplementedError

    async def act(self, actions: list[Action]) -> None:
        raise NotImplementedError


class _PcmSession(_AgentSession):
    async def run(self) -> None:
        self.start_policy(self.rate)
        await self.ws.send(json.dumps({"type": PcmWs.FORMAT, "sample_rate": self.out_rate()}))
        async for message in self.ws:
            if isinstance(message, str):
                await self.on_text(message)
            elif not await self.hear(np.frombuffer(message, dtype="<i2").astype(np.int16)):
                return

    def out_rate(self) -> int:
        return self.rate * 2 if self.config.fault == "wrong-rate" else self.rate

    async def on_text(self, message: str) -> None:
        """A control message (the start message); one that is not a JSON object is
        answered with an error event."""
        data = client_event(message)
        if isinstance(data, str):
            await self.ws.send(json.dumps({"type": PcmWs.ERROR, "message": data}))
            return
        self.server.log.controls.append(data)
        if isinstance(data.get("sample_rate"), int):
            self.start_policy(data["sample_rate"])

    def error_event(self) -> dict[str, Any]:
        return {"type": PcmWs.ERROR, "message": self.failure_message()}

    async def act(self, actions: list[Action]) -> None:
        audio = [a.pcm for a in actions if a.kind == "audio" and a.pcm is not None]
        for action in actions:
            if action.kind == "transcript":
                await self.ws.send(json.dumps({"type": PcmWs.TRANSCRIPT, "role": "user",
                                               "text": action.text, "final": True}))
            elif action.kind == "interrupted":
                await self.ws.send(json.dumps({"type": PcmWs.CLEAR}))
        if audio:
            await self.ws.send(np.concatenate(audio).astype("<i2").tobytes())


class _RealtimeSession(_AgentSession):
    """The OpenAI Realtime protocol: JSON events, base64 audio, GA or beta names."""

    ga = True

    async def run(self) -> None:
        await self.send({"type": Realtime.SESSION_CREATED, "session": self.session_view()})
        async for message in self.ws:
            if isinstance(message, bytes):
                continue
            data = client_event(message)
            if isinstance(data, str):  # OpenAI answers with an error event and reads on
                await self.send({"type": Realtime.ERROR, "error": {
                    "type": "invalid_request_error", "code": "invalid_event",
                    "message": data}})
                continue
            kind = str(data.get("type"))
            if kind == Realtime.AUDIO_APPEND:
                wire = base64.b64decode(data["audio"])
                self.server.log.appends.append((asyncio.get_running_loop().time(), len(wire)))
                pcm = np.frombuffer(wire, dtype="<i2")
                if self.policy is None:
                    self.start_policy(self.rate)
                if not await self.hear(pcm.astype(np.int16)):
                    return
            else:
                self.server.log.controls.append(data)
                if await self.on_control(kind, data):
                    return

    async def on_control(self, kind: str, data: dict[str, Any]) -> bool:
        """Handle a client event; return True when the session should end."""
        if kind == Realtime.SESSION_UPDATE:
            session = data.get("session") or {}
            self.ga = "audio" in session
            self.configure(session)
            await self.send({"type": Realtime.SESSION_UPDATED, "session": self.session_view()})
        return False

    def configure(self, session: dict[str, Any]) -> None:
        self.start_policy(self.rate)

    def session_view(self) -> dict[str, Any]:
        raise NotImplementedError

    def out_rate(self) -> int:
        return self.rate * 2 if self.config.fault == "wrong-rate" else self.rate

    async def send(self, event: dict[str, Any]) -> None:
        """Send, ignoring a client that is closing: its last events are still read."""
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(json.dumps(event))

    def audio_delta(self, turn: int, pcm: np.ndarray[Any, np.dtype[np.int16]]) -> dict[str, Any]:
        name = Realtime.AUDIO_DELTA if self.ga else Realtime.AUDIO_DELTA_BETA
        return {"type": name, "response_id": f"resp_{turn}", "item_id": f"item_agent_{turn}",
                "output_index": 0, "content_index": 0,
                "delta": base64.b64encode(pcm.astype("<i2").tobytes()).decode("ascii")}


class _OpenAISession(_RealtimeSession):
    def __init__(self, server: ProtocolServer, ws: ServerConnection) -> None:
        super().__init__(server, ws)
        self.rate = OPENAI_RATE

    def session_view(self) -> dict[str, Any]:
        if self.ga:
            fmt = {"type": "audio/pcm", "rate": self.out_rate()}
            return {"type": "realtime", "audio": {"input": {"format": {"type": "audio/pcm",
                                                                       "rate": self.rate}},
                                                  "output": {"format": fmt}}}
        return {"input_audio_format": "pcm16",
                "output_audio_format": "g711_ulaw" if self.config.fault == "wrong-rate"
                else "pcm16"}

    async def on_control(self, kind: str, data: dict[str, Any]) -> bool:
        if kind == Realtime.ITEM_TRUNCATE:
            await self.send({"type": Realtime.ITEM_TRUNCATED,
                             "item_id": data.get("item_id"), "content_index": 0,
                             "audio_end_ms": data.get("audio_end_ms")})
            return False
        return await super().on_control(kind, data)

    async def act(self, actions: list[Action]) -> None:
        for action in actions:
            if action.kind == "speech_started":
                await self.send({"type": Realtime.SPEECH_STARTED,
                                 "audio_start_ms": action.at_ms,
                                 "item_id": f"item_user_{action.turn}"})
            elif action.kind == "speech_stopped":
                await self.send({"type": Realtime.SPEECH_STOPPED,
                                 "audio_end_ms": action.at_ms,
                                 "item_id": f"item_user_{action.turn}"})
            elif action.kind == "transcript":
                await self.send({"type": Realtime.USER_TRANSCRIPT_DONE,
                                 "item_id": f"item_user_{action.turn}",
                                 "content_index": 0, "transcript": action.text})
            elif action.kind == "reply_start":
                await self.send({"type": Realtime.RESPONSE_CREATED,
                                 "response": {"id": f"resp_{action.turn}"}})
            elif action.kind == "audio" and action.pcm is not None:
                step = self.out_rate() * BURST_DELTA_MS // 1000
                for start in range(0, action.pcm.size, step):
                    await self.send(self.audio_delta(action.turn,
                                                     action.pcm[start : start + step]))
            elif action.kind in ("reply_end", "interrupted"):
                status = "completed" if action.kind == "reply_end" else "cancelled"
                await self.send({"type": Realtime.RESPONSE_DONE,
                                 "response": {"id": f"resp_{action.turn}", "status": status}})


class _NativeSession(_AgentSession):
    """SGLang-Omni's native full-duplex protocol, as strict as the real server.

    Every client event needs an ``event_id`` and no unknown fields; audio is refused
    before ``session.updated``, after ``sglang.input_audio.end``, with a gap in
    ``sglang.seq`` or a ``sglang.t_start_ms`` other than the audio already accepted. A
    refusal is a non-fatal ``error`` event naming the problem (and logged in
    ``AgentLog.rejections``), as the real server does, so a client that breaks the
    protocol shows up as a fault. The whole call is one response (as PersonaPlex's is):
    ``response.created`` with the first output, ``response.output_audio.delta`` for
    every append heard, and ``response.done`` once the input has drained.
    """

    def __init__(self, server: ProtocolServer, ws: ServerConnection) -> None:
        super().__init__(server, ws)
        self.out_rate = self.config.output_rate or self.rate
        if self.config.fault == "wrong-rate":
            self.out_rate *= 2  # granted and sent, whatever the client asked for
        self.session_id = f"sess_local_{server.log.connections}"
        self.opened = False
        self.ended = False
        self.next_seq = 0
        self.accepted = 0  # input samples accepted
        self.responding = False
        self.spoken: list[str] = []

    def start_policy(self, rate: int) -> None:
        self.replace_policy(self.server.new_policy(self, rate, self.out_rate))

    async def run(self) -> None:
        await self.send({"type": Realtime.SESSION_CREATED,
                         "session": {"id": self.session_id, "object": "realtime.session",
                                     "type": "realtime", "model": NATIVE_MODEL,
                                     "sglang": {"granted": None}}})
        async for message in self.ws:
            if not await self.on_message(message):
                return

    async def on_message(self, message: str | bytes) -> bool:
        """Handle one client message; return False once the session is over."""
        if isinstance(message, bytes):
            return await self.reject(None, "invalid_request", "binary frames are unsupported")
        data = client_event(message)
        if isinstance(data, str):
            return await self.reject(None, "invalid_request", data)
        event_id = data.get("event_id")
        if not isinstance(event_id, str) or not 0 < len(event_id) <= 256:
            return await self.reject(None, "invalid_request",
                                     "event_id must be a nonempty string", "event_id")
        kind = data.get("type")
        if kind not in NATIVE_FIELDS:
            return await self.reject(event_id, "not_supported", "unsupported event type")
        if set(data) - NATIVE_FIELDS[kind] - {"type", "event_id"}:
            return await self.reject(event_id, "invalid_request", "unsupported event fields")
        if kind == Realtime.AUDIO_APPEND:
            return await self.on_append(event_id, data)
        self.server.log.controls.append(data)
        if kind == Realtime.SESSION_UPDATE:
            return await self.on_update(event_id, data.get("session"))
        if not self.opened:
            return await self.reject(event_id, "invalid_state", "session is not OPEN")
        if kind == Native.INPUT_END:
            return await self.on_end(event_id)
        await self.send({"type": Native.SESSION_CLOSED, "reason": "client_closed",
                         "client_event_id": event_id})
        await self.ws.close(1000, "session closed")
        return False

    async def reject(self, event_id: str | None, code: str, message: str,
                     param: str | None = None) -> bool:
        error = {"type": "invalid_request_error", "code": code, "message": message,
                 "event_id": event_id, "param": param}
        self.server.log.rejections.append(error)
        await self.send({"type": Realtime.ERROR, "sglang": {"fatal": False}, "error": error})
        return True

    async def on_update(self, event_id: str, session: Any) -> bool:
        if not isinstance(session, dict) or set(session) - NATIVE_SESSION_FIELDS:
            return await self.reject(event_id, "invalid_request", "unsupported session field",
                                     "session")
        audio = session.get("audio") or {}
        audio_in = audio.get("input") or {}
        wanted = {"type": "audio/pcm", "rate": self.rate}
        if audio_in.get("format", wanted) != wanted:
            return await self.reject(event_id, "invalid_request",
                                     "unsupported PCM format or sample rate",
                                     "session.audio.input.format")
        if self.config.fault != "wrong-rate" and (audio.get("output") or {}).get(
                "format", {"type": "audio/pcm", "rate": self.out_rate}) != {
                "type": "audio/pcm", "rate": self.out_rate}:
            return await self.reject(event_id, "invalid_request",
                                     "unsupported PCM format or sample rate",
                                     "session.audio.output.format")
        if audio_in.get("turn_detection") is not None:
            return await self.reject(event_id, "not_applicable",
                                     "VAD is only available for turn-based sessions")
        if not self.opened:
            self.opened = True
            self.start_policy(self.rate)
        in_format = {"type": "audio/pcm", "rate": self.rate}
        out_format = {"type": "audio/pcm", "rate": self.out_rate}
        granted = {"interaction": "native", "native_full_duplex": True, "turn_control": [None],
                   "client_commit": False, "input_modalities": ["audio"],
                   "output_modalities": ["audio"], "input_audio_format": in_format,
                   "output_audio_format": out_format, "native_unit_ms": NATIVE_UNIT_MS,
                   "tail_policy": "pad", "supports_truncate": False, "rejections": []}
        view = {**session, "id": self.session_id, "object": "realtime.session",
                "model": NATIVE_MODEL, "type": "realtime", "output_modalities": ["audio"],
                "audio": {"input": {"format": in_format, "turn_detection": None},
                          "output": {"format": out_format}},
                "sglang": {**(session.get("sglang") or {}), "granted": granted}}
        await self.send({"type": Realtime.SESSION_UPDATED, "client_event_id": event_id,
                         "session": view})
        return True

    async def on_append(self, event_id: str, data: dict[str, Any]) -> bool:
        meta = data.get("sglang")
        if not isinstance(meta, dict) or set(meta) - {"seq", "t_start_ms"} or "seq" not in meta:
            return await self.reject(event_id, "invalid_request", "append requires sglang.seq",
                                     "sglang.seq")
        self.server.log.append_meta.append({"event_id": event_id, **meta})
        if not self.opened:
            return await self.reject(event_id, "invalid_state", "session is not OPEN")
        if self.ended:
            return await self.reject(event_id, "invalid_state", "audio input has ended")
        if type(meta["seq"]) is not int or meta["seq"] != self.next_seq:
            return await self.reject(event_id, "invalid_state", "audio seq must be contiguous")
        try:
            wire = base64.b64decode(str(data.get("audio")), validate=True)
        except ValueError:
            return await self.reject(event_id, "invalid_request", "invalid base64 audio", "audio")
        if not wire or len(wire) % 2:
            return await self.reject(event_id, "invalid_request",
                                     "audio must contain whole PCM16 samples")
        start_ms = meta.get("t_start_ms")
        if start_ms is not None and (type(start_ms) not in (int, float) or not math.isclose(
                start_ms, self.accepted * 1000 / self.rate, rel_tol=0, abs_tol=1e-7)):
            return await self.reject(event_id, "invalid_state",
                                     "input media time must be sample-contiguous")
        self.server.log.appends.append((asyncio.get_running_loop().time(), len(wire)))
        self.next_seq += 1
        self.accepted += len(wire) // 2
        await self.send({"type": Native.INPUT_ACCEPTED, "seq": meta["seq"],
                         "accepted_end_ms": self.accepted * 1000 / self.rate,
                         "client_event_id": event_id})
        return await self.hear(np.frombuffer(wire, dtype="<i2").astype(np.int16))

    async def on_end(self, event_id: str) -> bool:
        if self.ended:
            return await self.reject(event_id, "invalid_state", "audio input already ended")
        self.ended = True
        accepted_ms = self.accepted * 1000 / self.rate
        await self.send({"type": Native.INPUT_ENDED, "accepted_end_ms": accepted_ms,
                         "tail_policy": "pad", "client_event_id": event_id})
        await self.send({"type": Native.INPUT_DRAINED, "accepted_end_ms": accepted_ms,
                         "consumed_ms": accepted_ms, "discarded_ms": 0.0, "padding_ms": 0.0,
                         "client_event_id": event_id})
        if self.responding:
            ids = {"response_id": NATIVE_RESPONSE, "item_id": NATIVE_ITEM, "output_index": 0,
                   "content_index": 0}
            text = " ".join(self.spoken)
            await self.send({"type": Realtime.AUDIO_DONE, **ids})
            await self.send({"type": Realtime.AGENT_TRANSCRIPT_DONE, **ids,
                             "transcript": text})
            await self.send({"type": Realtime.RESPONSE_DONE, "response": {
                "id": NATIVE_RESPONSE, "object": "realtime.response", "status": "completed",
                "status_details": {"reason": "input_ended"}}})
        return True

    def error_event(self) -> dict[str, Any]:
        return {"type": Realtime.ERROR, "sglang": {"fatal": True},
                "error": {"type": "server_error", "code": "simulated",
                          "message": self.failure_message()}}

    async def send(self, event: dict[str, Any]) -> None:
        """Send, ignoring a client that is closing: its last events are still read."""
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(json.dumps(event))

    async def act(self, actions: list[Action]) -> None:
        ids = {"response_id": NATIVE_RESPONSE, "item_id": NATIVE_ITEM, "output_index": 0,
               "content_index": 0}
        audio = [a.pcm for a in actions if a.kind == "audio" and a.pcm is not None]
        if audio and not self.responding:
            self.responding = True
            await self.send({"type": Realtime.RESPONSE_CREATED, "response": {
                "id": NATIVE_RESPONSE, "object": "realtime.response", "status": "in_progress",
                "output": []}})
        for action in actions:
            if action.kind == "reply_start":
                text = action.text or self.config.reply_texts[
                    (action.turn - 1) % len(self.config.reply_texts)]
                self.spoken.append(text)
                await self.send({"type": Realtime.AGENT_TRANSCRIPT_DELTA, **ids,
                                 "delta": text})
        if audio:
            pcm = np.concatenate(audio).astype("<i2").tobytes()
            await self.send({"type": Realtime.AUDIO_DELTA, **ids,
                             "delta": base64.b64encode(pcm).decode("ascii")})


SESSIONS: dict[str, type[_AgentSession]] = {
    "pcm-websocket": _PcmSession, "openai-realtime": _OpenAISession,
    "native-realtime": _NativeSession,
}
"""The session class of each protocol; ``vllm_duplex`` adds its own when imported (the
package imports it), so this module need not import the modules built on it."""


async def serve_until_cancelled(kind: str, protocol: str, options: Mapping[str, str],
                                host: str = "127.0.0.1", port: int = 0) -> None:
    """Serve a local agent and print its URL (flushed, for a parent process) until cancelled."""
    async with LocalAgentServer(kind, protocol, options, host=host, port=port) as agent:
        print(agent.url, flush=True)
        await asyncio.Future()
