"""vllm-omni-duplex (vLLM-Omni's duplex Realtime endpoint) against the local reference agent.

The wire messages are pinned against the field names of the pinned vLLM-Omni sources
(docs/agents.md names the files and commits): every session field the client sends is
one that ``DuplexSessionConfig.from_event`` or the Realtime session payload reads, the
append carries what the Realtime input translator reads, and the acknowledgement the
fields of ``DuplexPlaybackCursor.acknowledge``.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import numpy as np
import pytest

from speecheval.agents._playback_acks import PlaybackLedger
from speecheval.agents.local import LocalAgentServer
from speecheval.agents.local.server import AgentLog
from speecheval.agents.registry import open_transport
from speecheval.agents.vllm_omni_duplex import VllmOmniDuplexTransport, playback_ack, refusal
from speecheval.agents.wav_chunks import BadChunk, decode_wav_chunk, encode_wav_chunk
from speecheval.core.errors import InputError
from speecheval.session.record.recording import SessionRecording
from speecheval.session.run.realtime import run_realtime

from .helpers import RATE, SESSION_LIMIT_S, of_type, track

# vllm_omni/entrypoints/duplex/protocol.py @ 61a1ee23: the keys DuplexSessionConfig.from_event
# reads; realtime_output.py @ 61a1ee23: the Realtime fields of the session payload
CONFIG_FIELDS = {"model", "instructions", "voice", "ref_audio", "response_format",
                 "use_tts_template", "temperature", "max_tokens", "speed", "idle_timeout_s",
                 "overlap_policy", "overlap_short_ack_ms", "overlap_barge_in_ms",
                 "overlap_silence_rms", "playback_commit_policy", "modalities", "extra_body"}
REALTIME_SESSION_FIELDS = {"input_audio_format", "output_audio_format", "audio",
                           "turn_detection"}
NATIVE_DUPLEX_KEY = "native_duplex"  # protocol.py NATIVE_DUPLEX_KEY
APPEND_FIELDS = {"type", "audio", "format", "sample_rate_hz"}  # realtime_input.py @ 7c39366f
ACK_FIELDS = {"type", "response_id", "item_id", "played_ms", "committed_ms"}


def _transport(**options: str) -> VllmOmniDuplexTransport:
    transport = open_transport("vllm-omni-duplex", {"url": "ws://127.0.0.1:9/v1/realtime",
                                                    **options})
    assert isinstance(transport, VllmOmniDuplexTransport)
    return transport


def test_session_update_uses_only_the_pinned_field_names() -> None:
    update = _transport(model="openbmb/MiniCPM-o-4_5", voice="default",
                        overlap_policy="barge_in_on_speech",
                        playback_commit_policy="ack_only").session_update(16000)
    assert update == {"type": "session.update", "session": {
        "model": "openbmb/MiniCPM-o-4_5", "voice": "default",
        "modalities": ["text", "audio"], "response_format": "wav",
        "input_audio_format": "pcm16", "turn_detection": None,
        "audio": {"input": {"format": {"type": "audio/pcm", "rate": 16000},
                            "sample_rate_hz": 16000}},
        "overlap_policy": "barge_in_on_speech", "playback_commit_policy": "ack_only",
        "extra_body": {NATIVE_DUPLEX_KEY: True}}}
    assert set(update["session"]) <= CONFIG_FIELDS | REALTIME_SESSION_FIELDS
    # the defaults: listen_only, no model/voice/commit policy (the server's), no VAD
    plain = _transport().session_update(24000)["session"]
    assert plain["overlap_policy"] == "listen_only" and plain["turn_detection"] is None
    assert not {"model", "voice", "ref_audio", "playback_commit_policy"} & set(plain)


def test_ref_audio_file_is_sent_as_a_wav_data_url(tmp_path: Any) -> None:
    clip = tmp_path / "voice.wav"
    clip.write_bytes(base64.b64decode(encode_wav_chunk(b"\x01\x00\x02\x00", 16000)))
    session = _transport(ref_audio=str(clip)).session_update(16000)["session"]
    assert session["ref_audio"] == ("data:audio/wav;base64," +
                                    base64.b64encode(clip.read_bytes()).decode("ascii"))
    url = "https://example.org/voice.wav"  # not a local file: sent as written
    assert _transport(ref_audio=url).session_update(16000)["session"]["ref_audio"] == url
    with pytest.raises(InputError, match="voice or ref_audio, not both"):
        _transport(voice="a", ref_audio=url)


def test_playback_ack_names_the_replys_item() -> None:
    ack = playback_ack("resp_7", 340)
    assert ack == {"type": "playback.ack", "response_id": "resp_7", "item_id": "item_resp_7",
                   "played_ms": 340, "committed_ms": 340}
    assert set(ack) == ACK_FIELDS


def test_wav_chunks_round_trip_and_bad_ones_are_named() -> None:
    pcm = np.arange(-5, 5, dtype="<i2").tobytes()
    assert decode_wav_chunk(encode_wav_chunk(pcm, 24000)) == (24000, pcm)
    with pytest.raises(BadChunk, match="not valid base64"):
        decode_wav_chunk("***")
    with pytest.raises(BadChunk, match="not a WAV file"):
        decode_wav_chunk(base64.b64encode(pcm).decode())  # raw PCM, no header


def test_the_ledger_plays_chunks_back_to_back_from_receipt() -> None:
    ledger = PlaybackLedger()
    # resp_a: 100 ms at t=0 and 100 ms at t=0.05 (queued behind: plays 0.1..0.2);
    # listening audio 100 ms at 0.15 (plays 0.2..0.3); resp_b 100 ms at 0.5 (0.5..0.6)
    ledger.audio("resp_a", 0.1, 0.0)
    ledger.audio("resp_a", 0.1, 0.05)
    ledger.audio(None, 0.1, 0.15)
    ledger.audio("resp_b", 0.1, 0.5)
    assert ledger.due(0.15) == [("resp_a", 150), ("resp_b", 0)]
    assert ledger.due(0.15) == []  # nothing moved: nothing due
    ledger.finish("resp_a")
    assert ledger.due(0.55) == [("resp_a", 200), ("resp_b", 50)]
    ledger.clear(0.58)  # resp_b keeps its 80 ms played, the rest is dropped
    assert ledger.due(1.0) == [("resp_b", 80)]
    assert ledger.due(2.0) == []  # both done and played: forgotten


def test_refusals_name_the_capability() -> None:
    caps = {"supports_barge_in": False, "supports_multi_session": False}
    barge = refusal(caps, "barge_in_on_speech", 1)
    assert barge is not None and "supports_barge_in is false" in barge
    multi = refusal(caps, "listen_only", 4)
    assert multi is not None and "supports_multi_session is false" in multi
    assert refusal(caps, "listen_only", 1) is None
    assert refusal(None, "barge_in_on_speech", 8) is None  # no payload: tried, not refused
    assert refusal({"supports_barge_in": True}, "barge_in_on_speech", 1) is None


async def _session(user: np.ndarray, agent_options: dict[str, str] | None = None,
                   transport_options: dict[str, str] | None = None
                   ) -> tuple[SessionRecording, AgentLog, VllmOmniDuplexTransport]:
    async with LocalAgentServer("duplex", "vllm-omni-duplex",
                                {"voice": "synthetic", **(agent_options or {})}) as agent:
        transport = open_transport("vllm-omni-duplex",
                                   {"url": agent.url, **(transport_options or {})})
        assert isinstance(transport, VllmOmniDuplexTransport)
        recording = await asyncio.wait_for(
            run_realtime(transport, user, RATE, frame_ms=20, tail_ms=1500), SESSION_LIMIT_S)
        return recording, agent.log, transport


@pytest.mark.parametrize("policy", ["commit_all_on_done", "ack_only"])
def test_a_session_speaks_the_protocol_and_acknowledges_as_playback_goes(policy: str) -> None:
    # speech 0..500 ms: the agent endpoints after 300 ms of silence and replies 200 ms
    # later, at ~1000 ms of its own audio time, for the ~2.6 s of its synthetic reply
    user = track(("speech", 500), ("silence", 3500))
    recording, log, transport = asyncio.run(_session(
        user, {"playback_commit_policy": policy}))
    assert log.rejections == [], log.rejections   # every client event was accepted
    assert not of_type(recording, "fault")
    assert [c["type"] for c in log.controls][0] == "session.update"
    assert log.controls[-1]["type"] == "session.close"
    acks = [c for c in log.controls if c["type"] == "playback.ack"]
    assert acks and {a["response_id"] for a in acks} == {"resp_1"}
    played = [a["played_ms"] for a in acks]
    assert played == sorted(played) and all(a["committed_ms"] == a["played_ms"] for a in acks)
    # acks every 200 ms while it plays: successive ones at most ~200 ms of audio apart
    assert max(np.diff(played)) <= 200 + 40, played
    assert transport.capabilities is not None
    assert transport.capabilities["supports_playback_ack"] is True


def test_barge_in_clears_the_output_and_ends_the_reply() -> None:
    # the reply starts at ~1000 ms; the user talks over it from 1500 ms: the agent hears
    # 100 ms of overlap and stops 100 ms later, clearing its output buffer
    user = track(("speech", 500), ("silence", 1000), ("speech", 400), ("silence", 1500))
    recording, log, _ = asyncio.run(_session(
        user, transport_options={"overlap_policy": "barge_in_on_speech"}))
    assert log.rejections == []
    clears = of_type(recording, "clear")
    assert len(clears) == 1, clears
    # the reply (2.6 s long) started at 1000 ms of agent audio and stopped at 1700 ms:
    # 700 ms of it was sent, so no acknowledgement of it may pass that (the next reply,
    # to the user's second turn, is resp_2)
    first = [c["played_ms"] for c in log.controls
             if c["type"] == "playback.ack" and c["response_id"] == "resp_1"]
    assert first and 600 <= max(first) <= 700 + 20, first


def test_an_error_event_with_the_request_quoted_is_a_scrubbed_fault(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("H8_VLLM_KEY", "sk-very-secret-1234")
    user = track(("speech", 500), ("silence", 1000))
    recording, _, _ = asyncio.run(_session(
        user, {"fault": "error", "fault_after_ms": "240", "echo_request": "true"},
        {"api_key_env": "H8_VLLM_KEY"}))
    faults = of_type(recording, "fault")
    assert faults and "agent error event" in faults[0]["reason"]
    assert "sk-very-secret-1234" not in str(recording.events)
