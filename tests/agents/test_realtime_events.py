"""Decoding OpenAI-Realtime-style server events (GA and beta names) and truncate points."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from speecheval.agents._realtime_events import RealtimeDecoder
from speecheval.agents.base import AgentFault, AudioOut, SpeechStarted, Transcript


def _delta(kind: str, item: str, samples: int) -> dict[str, object]:
    pcm = np.full(samples, 1000, dtype="<i2").tobytes()
    return {"type": kind, "item_id": item, "delta": base64.b64encode(pcm).decode()}


@pytest.mark.parametrize("kind", ["response.output_audio.delta", "response.audio.delta"])
def test_audio_delta_in_both_spellings(kind: str) -> None:
    decoder = RealtimeDecoder(16000, 16000, implied_rate=16000)
    event = decoder.decode(_delta(kind, "a", 160))
    assert isinstance(event, AudioOut) and len(event.pcm16) == 320


def test_audio_is_resampled_from_the_wire_rate() -> None:
    decoder = RealtimeDecoder(24000, 16000, implied_rate=24000)
    event = decoder.decode(_delta("response.audio.delta", "a", 2400))  # 100 ms at 24 kHz
    assert isinstance(event, AudioOut) and len(event.pcm16) == 2 * 1600  # 100 ms at 16 kHz


def test_truncate_point_is_item_relative() -> None:
    decoder = RealtimeDecoder(16000, 16000, implied_rate=16000)
    decoder.decode(_delta("response.output_audio.delta", "item1", 8000))   # 0..500 ms
    decoder.decode(_delta("response.output_audio.delta", "item2", 4800))   # 500..800 ms
    decoder.decode(_delta("response.output_audio.delta", "item2", 4800))   # 800..1100 ms
    # played 720 ms of all audio received: item1 (500 ms) fully, item2 for 720 - 500 = 220 ms
    assert decoder.truncate_point(720) == ("item2", 220)
    # inside item1: 130 ms
    assert decoder.truncate_point(130) == ("item1", 130)
    # all of item2 (600 ms) played: nothing to truncate
    assert decoder.truncate_point(1100) is None


def test_truncate_point_without_audio_is_none() -> None:
    assert RealtimeDecoder(24000, 16000, implied_rate=24000).truncate_point(500) is None


def test_speech_started_and_transcripts() -> None:
    decoder = RealtimeDecoder(24000, 16000, implied_rate=24000)
    assert isinstance(decoder.decode({"type": "input_audio_buffer.speech_started"}),
                      SpeechStarted)
    done = decoder.decode({"type": "conversation.item.input_audio_transcription.completed",
                           "transcript": "hello there"})
    assert done == Transcript(role="user", text="hello there", final=True)
    agent = decoder.decode({"type": "response.audio_transcript.done", "transcript": "hi"})
    assert agent == Transcript(role="agent", text="hi", final=True)
    assert decoder.decode({"type": "rate_limits.updated"}) is None


def test_error_event_is_a_fault_with_its_message() -> None:
    decoder = RealtimeDecoder(24000, 16000, implied_rate=24000)
    event = decoder.decode({"type": "error", "error": {"type": "invalid_request_error",
                                                       "message": "bad item"}})
    assert event == AgentFault("agent error event: invalid_request_error: bad item")


@pytest.mark.parametrize(("session", "reason"), [
    ({"audio": {"output": {"format": {"type": "audio/pcm", "rate": 16000}}}}, "16000 Hz"),
    ({"output_audio_format": "g711_ulaw"}, "g711_ulaw"),
])
def test_session_declaring_another_output_rate_is_a_fault(session: dict[str, object],
                                                          reason: str) -> None:
    decoder = RealtimeDecoder(24000, 16000, implied_rate=24000)
    event = decoder.decode({"type": "session.updated", "session": session})
    assert isinstance(event, AgentFault) and "wrong sample rate" in event.reason
    assert reason in event.reason


def test_session_with_the_expected_rate_is_accepted() -> None:
    decoder = RealtimeDecoder(24000, 16000, implied_rate=24000)
    assert decoder.decode({"type": "session.updated",
                           "session": {"output_audio_format": "pcm16"}}) is None


@pytest.mark.parametrize("delta", ["***", base64.b64encode(b"\x01\x02\x03").decode()])
def test_malformed_audio_delta_is_a_fault(delta: str) -> None:
    decoder = RealtimeDecoder(24000, 16000, implied_rate=24000)
    event = decoder.decode({"type": "response.audio.delta", "item_id": "a", "delta": delta})
    assert isinstance(event, AgentFault) and "malformed audio delta" in event.reason


def test_audio_of_a_truncated_item_is_dropped() -> None:
    decoder = RealtimeDecoder(16000, 16000, implied_rate=16000)
    decoder.decode(_delta("response.output_audio.delta", "item1", 1600))
    decoder.mark_truncated("item1")
    assert decoder.decode(_delta("response.output_audio.delta", "item1", 1600)) is None
    assert isinstance(decoder.decode(_delta("response.output_audio.delta", "item2", 160)),
                      AudioOut)
