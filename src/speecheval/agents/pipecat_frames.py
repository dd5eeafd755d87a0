"""Pipecat's protobuf frames (``pipecat/frames/frames.proto``) on the wire, without protobuf.

The ``pipecat`` transport needs five small messages, each field a varint or a byte
string, so the proto3 wire format is written and read here (a varint key
``field << 3 | wire_type``, then a varint or a length and that many bytes) rather than
pulling in the protobuf runtime and generated code. The schema, as Pipecat 1.14 ships it::

    message Frame { oneof frame { TextFrame text = 1; AudioRawFrame audio = 2;
        TranscriptionFrame transcription = 3; MessageFrame message = 4;
        InterruptionFrame interruption = 5; } }
    message AudioRawFrame { uint64 id = 1; string name = 2; bytes audio = 3;
        uint32 sample_rate = 4; uint32 num_channels = 5; optional uint64 pts = 6; }
    message TextFrame / TranscriptionFrame { uint64 id = 1; string name = 2; string text = 3; ... }
    message MessageFrame { string data = 1; }

The tests check these bytes against Pipecat's own ``ProtobufFrameSerializer``.
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = {1: "text", 2: "audio", 3: "transcription", 4: "message", 5: "interruption"}
AUDIO, AUDIO_BYTES, AUDIO_RATE, AUDIO_CHANNELS = 2, 3, 4, 5
TEXT = 3  # the text field of TextFrame and TranscriptionFrame
MESSAGE_DATA = 1
VARINT, LENGTH, FIXED64, FIXED32 = 0, 2, 1, 5


class MalformedFrame(ValueError):
    """Bytes that are not a Pipecat frame."""


@dataclass(frozen=True)
class Frame:
    """One decoded frame: its kind (``audio``, ``text``, ...) and its fields by number
    (varints as ints, strings and bytes as bytes; a repeated field keeps its last value)."""

    kind: str
    fields: dict[int, int | bytes]

    def integer(self, number: int, default: int = 0) -> int:
        value = self.fields.get(number, default)
        if not isinstance(value, int):
            raise MalformedFrame(f"{self.kind} field {number} is not a varint")
        return value

    def data(self, number: int) -> bytes:
        value = self.fields.get(number, b"")
        if not isinstance(value, bytes):
            raise MalformedFrame(f"{self.kind} field {number} is not a byte string")
        return value


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _length_field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | LENGTH) + _varint(len(payload)) + payload


def encode_audio(pcm16: bytes, sample_rate: int, channels: int = 1) -> bytes:
    """``Frame{audio: AudioRawFrame{audio, sample_rate, num_channels}}``.

    By hand: audio is key 3 << 3 | 2 = 1a, length 02, 01 00; sample_rate key 4 << 3 = 20,
    16000 = 125 * 128 + 0 as varint 80 7d; num_channels key 5 << 3 = 28, 01. That is 9
    bytes, inside the audio field of Frame: key 2 << 3 | 2 = 12, length 09.

    >>> encode_audio(b"\\x01\\x00", 16000).hex()
    '12091a02010020807d2801'
    """
    inner = (_length_field(AUDIO_BYTES, pcm16) + _varint(AUDIO_RATE << 3 | VARINT)
             + _varint(sample_rate) + _varint(AUDIO_CHANNELS << 3 | VARINT) + _varint(channels))
    return _length_field(AUDIO, inner)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data):
            raise MalformedFrame("truncated varint")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value, at
        shift += 7
        if shift > 63:
            raise MalformedFrame("varint longer than 64 bits")


def _fields(data: bytes) -> dict[int, int | bytes]:
    fields: dict[int, int | bytes] = {}
    at = 0
    while at < len(data):
        key, at = _read_varint(data, at)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise MalformedFrame("field number 0")
        if wire == VARINT:
            fields[number], at = _read_varint(data, at)
        elif wire == LENGTH:
            size, at = _read_varint(data, at)
            if at + size > len(data):
                raise MalformedFrame("truncated field")
            fields[number], at = data[at : at + size], at + size
        elif wire in (FIXED64, FIXED32):  # no such field in the schema: skipped
            at += 8 if wire == FIXED64 else 4
            if at > len(data):
                raise MalformedFrame("truncated fixed-width field")
        else:
            raise MalformedFrame(f"wire type {wire} is not used by proto3 messages")
    return fields


def decode(data: bytes) -> Frame | None:
    """The frame in ``data``; None for a frame of a kind this schema does not know.

    >>> f = decode(encode_audio(b"\\x01\\x00", 16000))
    >>> f.kind, f.data(AUDIO_BYTES), f.integer(AUDIO_RATE), f.integer(AUDIO_CHANNELS)
    ('audio', b'\\x01\\x00', 16000, 1)
    """
    outer = _fields(data)
    known = [number for number in outer if number in KINDS]
    if not known:
        return None
    number = known[-1]
    inner = outer[number]
    if not isinstance(inner, bytes):
        raise MalformedFrame(f"{KINDS[number]} is not a message")
    return Frame(KINDS[number], _fields(inner))
