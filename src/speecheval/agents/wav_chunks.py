"""Audio chunks as small base64 WAV files, the way vLLM-Omni's duplex server sends replies.

Each ``response.audio.delta`` of that server carries a whole RIFF/WAVE file (header and
PCM16 mono samples) in base64, so every chunk states its own sample rate. Decoding here
checks that statement rather than trusting it: a chunk that is not PCM16 mono WAV is a
fault with the reason, not a crash, and the caller compares the rate with the session's.
"""

from __future__ import annotations

import base64
import binascii
import io
import wave


class BadChunk(ValueError):
    """A chunk that is not base64 PCM16 mono WAV; the message says what it is instead."""


def decode_wav_chunk(text: str) -> tuple[int, bytes]:
    """(sample rate, PCM16 little-endian bytes) of one base64 WAV chunk."""
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise BadChunk("audio delta is not valid base64") from None
    try:
        with wave.open(io.BytesIO(data), "rb") as wav:
            channels, width, rate = wav.getnchannels(), wav.getsampwidth(), wav.getframerate()
            frames = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError) as exc:
        raise BadChunk(f"audio delta is not a WAV file ({exc})") from None
    if channels != 1 or width != 2:
        raise BadChunk(f"audio delta is WAV with {channels} channel(s) of {8 * width}-bit "
                       "samples; PCM16 mono was expected")
    return rate, frames


def encode_wav_chunk(pcm16: bytes, rate: int) -> str:
    """One base64 WAV chunk of PCM16 mono ``pcm16`` at ``rate`` (for the local server)."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(pcm16)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
