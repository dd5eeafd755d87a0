"""The event names of the wire protocols, written once for clients and the local agent.

The client transports (``pcm_websocket``, ``openai_realtime``, ``native_realtime``) and
the local reference agent that serves the same protocols (``local/server.py``) both use
these names, so a protocol change is one edit and the two sides cannot drift apart.
"""

from __future__ import annotations

from typing import Final


class PcmWs:
    """``pcm-websocket`` JSON control messages (audio travels as binary frames)."""

    CLEAR: Final = "clear"
    TRANSCRIPT: Final = "transcript"
    ERROR: Final = "error"
    FORMAT: Final = "format"


class Realtime:
    """OpenAI Realtime events (GA names, with the beta spellings a server may still send),
    shared by ``openai-realtime`` and SGLang-Omni's ``native-realtime``."""

    # client -> server
    SESSION_UPDATE: Final = "session.update"
    AUDIO_APPEND: Final = "input_audio_buffer.append"
    ITEM_TRUNCATE: Final = "conversation.item.truncate"
    # server -> client
    SESSION_CREATED: Final = "session.created"
    SESSION_UPDATED: Final = "session.updated"
    ERROR: Final = "error"
    SPEECH_STARTED: Final = "input_audio_buffer.speech_started"
    SPEECH_STOPPED: Final = "input_audio_buffer.speech_stopped"
    USER_TRANSCRIPT_DELTA: Final = "conversation.item.input_audio_transcription.delta"
    USER_TRANSCRIPT_DONE: Final = "conversation.item.input_audio_transcription.completed"
    ITEM_TRUNCATED: Final = "conversation.item.truncated"
    RESPONSE_CREATED: Final = "response.created"
    RESPONSE_DONE: Final = "response.done"
    AUDIO_DELTA: Final = "response.output_audio.delta"
    AUDIO_DELTA_BETA: Final = "response.audio.delta"
    AUDIO_DONE: Final = "response.output_audio.done"
    AGENT_TRANSCRIPT_DELTA: Final = "response.output_audio_transcript.delta"
    AGENT_TRANSCRIPT_DONE: Final = "response.output_audio_transcript.done"
    AGENT_TRANSCRIPT_DONE_BETA: Final = "response.audio_transcript.done"


class Native:
    """SGLang-Omni's additions to the realtime events (``native-realtime``)."""

    # client -> server
    INPUT_END: Final = "sglang.input_audio.end"
    SESSION_CLOSE: Final = "session.close"
    # server -> client
    INPUT_ACCEPTED: Final = "sglang.input_audio.accepted"
    INPUT_ENDED: Final = "sglang.input_audio.ended"
    INPUT_DRAINED: Final = "sglang.input_audio.drained"
    SESSION_CLOSED: Final = "session.closed"


class VllmDuplex:
    """vLLM-Omni's duplex Realtime events (``vllm-omni-duplex``), as its
    ``vllm_omni/entrypoints/duplex`` package names them at the commits docs/agents.md pins:
    the Realtime beta names plus the duplex additions (overlap decisions, speak and listen
    marks, playback acknowledgements)."""

    # client -> server
    SESSION_UPDATE: Final = "session.update"
    AUDIO_APPEND: Final = "input_audio_buffer.append"
    PLAYBACK_ACK: Final = "playback.ack"
    SESSION_CLOSE: Final = "session.close"
    # server -> client
    SESSION_CREATED: Final = "session.created"
    SESSION_UPDATED: Final = "session.updated"
    SESSION_CLOSED: Final = "session.closed"
    ERROR: Final = "error"
    RESPONSE_CREATED: Final = "response.created"
    RESPONSE_SPEAK: Final = "response.speak"
    RESPONSE_LISTEN: Final = "response.listen"
    AUDIO_DELTA: Final = "response.audio.delta"
    AUDIO_DONE: Final = "response.audio.done"
    TRANSCRIPT_DELTA: Final = "response.audio_transcript.delta"
    TRANSCRIPT_DONE: Final = "response.audio_transcript.done"
    RESPONSE_DONE: Final = "response.done"
    SPEECH_STARTED: Final = "input_audio_buffer.speech_started"
    SPEECH_STOPPED: Final = "input_audio_buffer.speech_stopped"
    INPUT_COMMITTED: Final = "input_audio_buffer.committed"
    OVERLAP_DECISION: Final = "overlap.decision"
    OUTPUT_CLEARED: Final = "output_audio_buffer.cleared"
    PLAYBACK_ACKNOWLEDGED: Final = "playback.acknowledged"


# the overlap policies and playback-commit policies of vLLM-Omni's DuplexSessionConfig
VLLM_OVERLAP_POLICIES: Final = ("listen_only", "barge_in_on_speech")
VLLM_COMMIT_POLICIES: Final = ("commit_all_on_done", "ack_only")
