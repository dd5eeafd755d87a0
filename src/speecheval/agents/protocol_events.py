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
