"""The ``-o key=value`` options of the transports (the sockets and WebRTC), as
:mod:`speecheval.core.schema` models.

Options arrive as text (a command line, or a scenario's options written as text); each
transport has a :class:`ConnectionOptions` subclass here whose fields turn that text into
the values it uses. Transports import this module when they are built, not when they
are imported, so that ``speecheval --help`` does not import pydantic.

An unknown key is refused with the known ones listed (``-o modle=`` must not fall back
to the default model), and every number must be finite. The text as
given is kept too: :class:`~speecheval.core.redact.Redactor` describes the options in
the report exactly as they were written, with secrets hidden.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar, Generic, Literal, TypeVar

from pydantic import BeforeValidator

from ..core.errors import InputError
from ..core.schema import Schema, validate


def _finite_non_negative(text: object) -> object:
    """A number written as text: finite and >= 0 (a timeout, a threshold)."""
    if not isinstance(text, str):
        return text
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"must be a finite number >= 0, got {text!r}")
    return value


def _positive_or_empty(text: object) -> object:
    """A positive whole number written as text; ``""`` is not given (``None``)."""
    if not isinstance(text, str):
        return text
    if text == "":
        return None
    if not text.isdigit() or int(text) <= 0:
        raise ValueError(f"must be a positive whole number, got {text!r}")
    return int(text)


NonNegative = Annotated[float, BeforeValidator(_finite_non_negative)]
PositiveOrUnset = Annotated[int | None, BeforeValidator(_positive_or_empty)]


class TextOptions(Schema):
    """Options written as text: ``defaults`` (text, as if given with ``-o``) fill in what
    was not given, so that the report describes the defaults as written; fields therefore
    have no defaults of their own. A transport's model subclasses this one (or
    :class:`ConnectionOptions`) and extends ``defaults``."""

    defaults: ClassVar[dict[str, str]] = {}


class ConnectionOptions(TextOptions):
    """The options every socket transport takes: where to connect and how long to wait."""

    defaults: ClassVar[dict[str, str]] = {
        "url": "",
        "connect_timeout_s": "10",
        "ping_interval_s": "5",
        "ping_timeout_s": "5",
    }

    url: str
    connect_timeout_s: NonNegative
    ping_interval_s: NonNegative
    ping_timeout_s: NonNegative


class PcmWebSocketOptions(ConnectionOptions):
    """``pcm-websocket``: ``agent_sample_rate`` (``""``: the session's rate);
    ``start_message`` and ``headers`` are JSON objects written as text, checked by the
    transport."""

    defaults: ClassVar[dict[str, str]] = {
        **ConnectionOptions.defaults,
        "agent_sample_rate": "",
        "start_message": "",
        "headers": "",
    }

    agent_sample_rate: PositiveOrUnset
    start_message: str
    headers: str


class NativeRealtimeOptions(ConnectionOptions):
    """``native-realtime``: the model's session settings; rates ``""`` mean the server's."""

    defaults: ClassVar[dict[str, str]] = {
        **ConnectionOptions.defaults,
        "model": "",
        "instructions": "",
        "input_rate": "",
        "output_rate": "",
        "chunk_ms": "80",
        "api_key_env": "",
    }

    model: str
    instructions: str
    input_rate: PositiveOrUnset
    output_rate: PositiveOrUnset
    chunk_ms: PositiveOrUnset
    api_key_env: str


class VllmOmniDuplexOptions(ConnectionOptions):
    """``vllm-omni-duplex``: the fields of vLLM-Omni's duplex ``session.update``
    (``""``: not sent, the server's default); ``ack_interval_ms`` paces the playback
    acknowledgements."""

    defaults: ClassVar[dict[str, str]] = {
        **ConnectionOptions.defaults,
        "model": "",
        "voice": "",
        "ref_audio": "",
        "instructions": "",
        "overlap_policy": "listen_only",
        "playback_commit_policy": "",
        "input_rate": "",
        "chunk_ms": "80",
        "ack_interval_ms": "200",
        "api_key_env": "",
    }

    model: str
    voice: str
    ref_audio: str
    instructions: str
    overlap_policy: Literal["listen_only", "barge_in_on_speech"]
    playback_commit_policy: Literal["", "commit_all_on_done", "ack_only"]
    input_rate: PositiveOrUnset
    chunk_ms: PositiveOrUnset
    ack_interval_ms: PositiveOrUnset
    api_key_env: str


class OpenAIRealtimeOptions(ConnectionOptions):
    """``openai-realtime``: the settings sent in ``session.update``; ``api`` picks the GA
    or beta event shapes."""

    defaults: ClassVar[dict[str, str]] = {
        **ConnectionOptions.defaults,
        "url": "wss://api.openai.com/v1/realtime",
        "model": "gpt-realtime",
        "api_key_env": "OPENAI_API_KEY",
        "api": "ga",
        "voice": "alloy",
        "instructions": "",
        "transcription_model": "gpt-4o-mini-transcribe",
        "vad_threshold": "0.5",
        "vad_prefix_padding_ms": "300",
        "vad_silence_duration_ms": "500",
    }

    model: str
    api_key_env: str
    api: Literal["ga", "beta"]
    voice: str
    instructions: str
    transcription_model: str
    vad_threshold: NonNegative
    vad_prefix_padding_ms: NonNegative
    vad_silence_duration_ms: NonNegative


class WebRtcOptions(TextOptions):
    """``webrtc``: the HTTP signalling endpoint (``url``, checked by the transport) and how
    long the offer/answer exchange, and then the media path, may take."""

    defaults: ClassVar[dict[str, str]] = {"url": "", "signalling_timeout_s": "10"}

    url: str
    signalling_timeout_s: NonNegative


Parsed = TypeVar("Parsed", bound=TextOptions, covariant=True)


@dataclass(frozen=True)
class TransportOptions(Generic[Parsed]):
    """A transport's options: validated (``parsed``) and as text with defaults filled in
    (``text``, what the redactor describes)."""

    transport: str
    parsed: Parsed
    text: dict[str, str]

    def required(self, key: str) -> str:
        """The text of ``key``, which must not be empty."""
        value = self.text[key]
        if not value:
            raise InputError(f"{self.transport}: option {key} is required (-o {key}=...)")
        return value


def parse_options(transport: str, given: Mapping[str, str],
                  model: type[Parsed]) -> TransportOptions[Parsed]:
    """``given`` over ``model.defaults``, validated into ``model``; an error is one line
    naming the transport and the option."""
    text = {**model.defaults, **given}
    try:
        parsed = validate(model, text, what="options")
    except InputError as exc:
        raise InputError(f"{transport}: option {exc}") from None
    return TransportOptions(transport, parsed, text)
