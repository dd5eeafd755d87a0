"""The local agent's ``vllm-omni-duplex`` protocol: vLLM-Omni's duplex Realtime schema.

It follows the pinned schema the client does (docs/agents.md): the client's
``session.update`` opens the session and may carry only ``DuplexSessionConfig`` fields
and the Realtime audio fields; the answer is ``session.created`` with the capability
payload (``DuplexCapabilities`` keys, the ones named in option ``deny`` set false) and
``session.updated``. Audio is base64 PCM16 in; out, every unit of model output (10 ms of
reply or of silence per 10 ms heard, as a native duplex model emits) is one base64 WAV
``response.audio.delta`` whose ``metadata.model_speak`` says whether it speaks, with the
playback cursor. Each reply is a response: ``response.created``, ``response.speak``,
its transcript, audio, ``response.audio.done`` and ``response.done``, then
``response.listen``. Under ``barge_in_on_speech`` the user talking over a reply stops it
(``overlap.decision``, ``output_audio_buffer.cleared``, ``response.done`` cancelled).

``playback.ack`` moves the reply's played and committed cursors and is answered with
``playback.acknowledged``; the server's commit policy (``commit_all_on_done`` or
``ack_only``) decides what ``response.done`` reports as committed. A violation of the
schema is answered with an ``error`` event (logged in ``AgentLog.rejections``), which the
client turns into a fault. Importing this module adds the protocol to the local server.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from websockets.exceptions import ConnectionClosed

from ..protocol_events import VLLM_COMMIT_POLICIES, VLLM_OVERLAP_POLICIES, VllmDuplex
from ..wav_chunks import encode_wav_chunk
from . import server
from .policy import Action, TurnPolicy

MODEL = "speecheval-local-vllm-duplex"
# the session fields of vLLM-Omni's DuplexSessionConfig, and the Realtime ones beside them
SESSION_FIELDS = {"model", "modalities", "instructions", "voice", "ref_audio",
                  "response_format", "temperature", "max_tokens", "speed", "use_tts_template",
                  "idle_timeout_s", "overlap_policy", "overlap_short_ack_ms",
                  "overlap_barge_in_ms", "overlap_silence_rms", "playback_commit_policy",
                  "extra_body", "input_audio_format", "output_audio_format", "turn_detection",
                  "audio", "type"}
APPEND_FIELDS = {"type", "event_id", "audio", "format", "sample_rate_hz"}
ACK_FIELDS = {"type", "event_id", "response_id", "item_id", "played_ms", "committed_ms"}
# DuplexCapabilities' payload for a realtime duplex deployment (its defaults, with the
# realtime endpoint and several sessions supported)
CAPABILITIES: dict[str, Any] = {
    "supports_session_adapter": True, "supports_model_native_turn_policy": True,
    "supports_external_turn_signal": True, "supports_client_commit": True,
    "supports_barge_in": True, "supports_playback_ack": True, "supports_input_append": True,
    "supports_realtime_endpoint": True, "supports_multi_session": True,
    "implementation_level": "serving_session_adapter", "chunk_period_ms": 1000,
    "target_barge_in_latency_ms": 1000,
}


@dataclass
class _Reply:
    response_id: str
    generated_ms: float = 0.0
    played_ms: int = 0
    committed_ms: int = 0


class VllmDuplexSession(server._AgentSession):
    """One connection of the ``vllm-omni-duplex`` protocol."""

    def __init__(self, agent: server.ProtocolServer, ws: Any) -> None:
        super().__init__(agent, ws)
        self.out_rate = self.declared_rate = self.rate  # set again by the session.update
        self.session_id = f"sess_local_{agent.log.connections}"
        self.opened = False
        self.overlap_policy = "listen_only"
        self.commit_policy = self.config.playback_commit_policy or "commit_all_on_done"
        self.reply: _Reply | None = None
        self.replies: dict[str, _Reply] = {}
        self.listens = 0

    async def run(self) -> None:
        async for message in self.ws:
            if not await self.on_message(message):
                return

    async def send(self, event: dict[str, Any]) -> None:
        """Send, ignoring a client that is closing: its last events are still read."""
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(json.dumps(event))

    async def reject(self, code: str, message: str, param: str | None = None) -> bool:
        error = {"type": "invalid_request_error", "code": code, "message": message,
                 "param": param}
        self.server.log.rejections.append(error)
        await self.send({"type": VllmDuplex.ERROR, "error": error})
        return True

    async def on_message(self, message: str | bytes) -> bool:
        if isinstance(message, bytes):
            return await self.reject("bad_event", "binary frames are unsupported")
        data = server.client_event(message)
        if isinstance(data, str):
            return await self.reject("bad_event", data)
        kind = data.get("type")
        if kind == VllmDuplex.AUDIO_APPEND:
            return await self.on_append(data)
        self.server.log.controls.append(data)
        if kind == VllmDuplex.SESSION_UPDATE:
            return await self.on_update(data.get("session"))
        if not self.opened:
            return await self.reject("session_not_open", "send session.update first")
        if kind == VllmDuplex.PLAYBACK_ACK:
            return await self.on_ack(data)
        if kind == VllmDuplex.SESSION_CLOSE:
            await self.send({"type": VllmDuplex.SESSION_CLOSED, "event": {
                "session_id": self.session_id, "reason": "client_closed"}})
            await self.ws.close(1000, "session closed")
            return False
        return await self.reject("unknown_event", f"unsupported event type {kind!r}")

    async def on_update(self, session: Any) -> bool:
        if self.opened:
            return await self.reject("bad_event", "the session is already open")
        if not isinstance(session, dict) or set(session) - SESSION_FIELDS:
            extra = sorted(set(session) - SESSION_FIELDS) if isinstance(session, dict) else []
            return await self.reject("bad_event", f"unsupported session fields {extra}",
                                     "session")
        if session.get("turn_detection") is not None:
            return await self.reject("unsupported_turn_detection",
                                     "this duplex model takes no server VAD", "turn_detection")
        policy = session.get("overlap_policy", "listen_only")
        if policy not in VLLM_OVERLAP_POLICIES:
            return await self.reject("bad_event", f"unknown overlap_policy {policy!r}")
        denied = set(self.config.deny)
        if "supports_barge_in" in denied:
            policy = "listen_only"  # the session opens, stating what it does instead
        commit = session.get("playback_commit_policy", self.commit_policy)
        if commit not in VLLM_COMMIT_POLICIES:
            return await self.reject("bad_event", f"unknown playback_commit_policy {commit!r}")
        self.overlap_policy, self.commit_policy = policy, commit
        self.opened = True
        self.set_rates(session.get("audio"))
        settings = replace(self.config.settings, interruptible=policy == "barge_in_on_speech")
        assert isinstance(self.server, server.LocalAgentServer)
        self.replace_policy(TurnPolicy(self.rate, settings, self.server.replies(self.out_rate),
                                       [], "duplex", out_rate=self.out_rate))
        view = {"id": self.session_id, "object": "realtime.session", "type": "realtime",
                "model": session.get("model") or MODEL, "modalities": ["text", "audio"],
                "overlap_policy": policy, "playback_commit_policy": commit,
                "turn_detection": None, "output_audio_format": "wav",
                "audio": {"input": {"format": {"type": "audio/pcm", "rate": self.rate},
                                    "sample_rate_hz": self.rate},
                          "output": {"format": {"type": "audio/wav",
                                                "rate": self.declared_rate}}},
                "capabilities": {**CAPABILITIES, **{name: False for name in denied}}}
        await self.send({"type": VllmDuplex.SESSION_CREATED, "session": view})
        await self.send({"type": VllmDuplex.SESSION_UPDATED, "session": view})
        return True

    def set_rates(self, audio: Any) -> None:
        """Hear at the input rate the session declares (the server converts any rate, so
        the local agent adopts it); speak at ``output_rate`` or that rate."""
        audio_in = audio.get("input") if isinstance(audio, dict) else None
        declared = audio_in.get("sample_rate_hz") if isinstance(audio_in, dict) else None
        if isinstance(declared, int) and declared > 0:
            self.rate = declared
        self.out_rate = self.declared_rate = self.config.output_rate or self.rate
        if self.config.fault == "wrong-rate":
            self.out_rate *= 2  # the session declares one rate, the chunks carry another

    async def on_append(self, data: dict[str, Any]) -> bool:
        if not self.opened:
            return await self.reject("session_not_open", "send session.update first")
        if set(data) - APPEND_FIELDS:
            return await self.reject("bad_event", "unsupported append fields")
        if data.get("format") != "pcm16" or data.get("sample_rate_hz") != self.rate:
            return await self.reject("unsupported_audio_format",
                                     f"expected pcm16 at {self.rate} Hz", "sample_rate_hz")
        try:
            wire = base64.b64decode(str(data.get("audio")), validate=True)
        except (binascii.Error, ValueError):
            return await self.reject("bad_event", "audio is not valid base64", "audio")
        if not wire or len(wire) % 2:
            return await self.reject("bad_event", "audio must hold whole PCM16 samples")
        self.server.log.appends.append((0.0, len(wire)))
        return await self.hear(np.frombuffer(wire, dtype="<i2").astype(np.int16))

    async def on_ack(self, data: dict[str, Any]) -> bool:
        if set(data) - ACK_FIELDS:
            return await self.reject("bad_event", "unsupported playback.ack fields")
        reply = self.replies.get(str(data.get("response_id")))
        played, committed = data.get("played_ms"), data.get("committed_ms", data.get("played_ms"))
        if (reply is None or type(played) is not int or type(committed) is not int
                or data.get("item_id", f"item_{reply.response_id}") != f"item_{reply.response_id}"):
            return await self.reject("bad_event", "playback.ack needs a known response_id, "
                                     "its item_id and whole played_ms / committed_ms")
        if played > reply.generated_ms + 1:
            return await self.reject("bad_event", f"played_ms {played} is past the "
                                     f"{reply.generated_ms:g} ms sent")
        reply.played_ms = max(reply.played_ms, played)
        reply.committed_ms = max(reply.committed_ms, committed)
        self.server.log.append_meta.append({"response_id": reply.response_id,
                                            "played_ms": played, "committed_ms": committed})
        await self.send({"type": VllmDuplex.PLAYBACK_ACKNOWLEDGED, "event": {
            "response_id": reply.response_id, **self.cursor(reply)}})
        return True

    def cursor(self, reply: _Reply) -> dict[str, int]:
        sent = round(reply.generated_ms)
        return {"generated_ms": sent, "sent_ms": sent, "played_ms": reply.played_ms,
                "committed_ms": reply.committed_ms}

    def error_event(self) -> dict[str, Any]:
        return {"type": VllmDuplex.ERROR, "error": {"type": "server_error",
                                                    "code": "simulated",
                                                    "message": self.failure_message()}}

    async def act(self, actions: list[Action]) -> None:
        for action in actions:
            if action.kind == "reply_start":
                await self.start_reply(action)
            elif action.kind == "audio" and action.pcm is not None:
                await self.unit(action.pcm)
            elif action.kind == "reply_end":
                await self.end_reply("completed", "stop")
            elif action.kind == "interrupted":
                await self.send({"type": VllmDuplex.OVERLAP_DECISION,
                                 "session_id": self.session_id, "policy": self.overlap_policy,
                                 "action": "barge_in", "reason": "user_speech"})
                response_id = self.reply.response_id if self.reply else None
                await self.send({"type": VllmDuplex.OUTPUT_CLEARED, "response_id": response_id})
                await self.end_reply("cancelled", "barge_in")
            elif action.kind in ("speech_started", "speech_stopped"):
                name = (VllmDuplex.SPEECH_STARTED if action.kind == "speech_started"
                        else VllmDuplex.SPEECH_STOPPED)
                key = "audio_start_ms" if action.kind == "speech_started" else "audio_end_ms"
                await self.send({"type": name, key: action.at_ms,
                                 "item_id": f"item_user_{action.turn}"})

    async def start_reply(self, action: Action) -> None:
        response_id = f"resp_{action.turn}"
        self.reply = self.replies[response_id] = _Reply(response_id)
        text = self.config.reply_texts[(action.turn - 1) % len(self.config.reply_texts)]
        await self.send({"type": VllmDuplex.RESPONSE_CREATED, "response_id": response_id,
                         "response": {"id": response_id, "object": "realtime.response",
                                      "status": "in_progress", "output": []}})
        await self.send({"type": VllmDuplex.RESPONSE_SPEAK, "response_id": response_id,
                         "item_id": f"item_{response_id}", "output_index": 0,
                         "content_index": 0, "metadata": {"model_speak": True}})
        await self.send({"type": VllmDuplex.TRANSCRIPT_DELTA, "response_id": response_id,
                         "item_id": f"item_{response_id}", "output_index": 0,
                         "content_index": 0, "delta": text})

    async def unit(self, pcm: np.ndarray[Any, np.dtype[np.int16]]) -> None:
        """One unit of output: reply audio inside a response, silence while listening."""
        speaking = self.reply is not None
        response_id = self.reply.response_id if self.reply else f"resp_listen_{self.listens}"
        metadata: dict[str, Any] = {"session_id": self.session_id, "model_speak": speaking}
        if self.reply is not None:
            self.reply.generated_ms += pcm.size * 1000 / self.out_rate
            metadata["playback"] = self.cursor(self.reply)
        await self.send({"type": VllmDuplex.AUDIO_DELTA, "response_id": response_id,
                         "item_id": f"item_{response_id}", "output_index": 0,
                         "content_index": 0, "format": "wav", "sample_rate_hz": self.out_rate,
                         "delta": encode_wav_chunk(pcm.astype("<i2").tobytes(), self.out_rate),
                         "metadata": metadata})

    async def end_reply(self, status: str, reason: str) -> None:
        reply, self.reply = self.reply, None
        if reply is None:
            return
        if self.commit_policy == "commit_all_on_done" and status == "completed":
            reply.committed_ms = round(reply.generated_ms)
        ids = {"response_id": reply.response_id, "item_id": f"item_{reply.response_id}",
               "output_index": 0, "content_index": 0}
        await self.send({"type": VllmDuplex.AUDIO_DONE, **ids})
        await self.send({"type": VllmDuplex.RESPONSE_DONE, "response_id": reply.response_id,
                         "response": {"id": reply.response_id, "object": "realtime.response",
                                      "status": status,
                                      "status_details": {"type": status, "reason": reason},
                                      "metadata": {"playback": self.cursor(reply)}}})
        self.listens += 1
        await self.send({"type": VllmDuplex.RESPONSE_LISTEN, "session_id": self.session_id,
                         "response_id": reply.response_id, "epoch": self.listens})


server.SESSIONS["vllm-omni-duplex"] = VllmDuplexSession
