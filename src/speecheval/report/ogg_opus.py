"""Audio for pages: Opus in Ogg, mono, about 24 kbit/s, the same bytes for the same input.

A page of a full benchmark holds thousands of clips; as 16-bit WAV in base64 that is
hundreds of megabytes a system. Opus at about 24 kbit/s keeps speech intelligible at a
twentieth of the size, and every browser plays it. libsndfile (through soundfile) encodes
it, but gives each Ogg stream a random serial number, so two runs would write different
bytes; :func:`encode_opus` puts a fixed serial number in every page header and recomputes
the page's checksum, which is all that differed (the encoder itself is deterministic).
"""

from __future__ import annotations

import io
import struct
from functools import cache

import numpy as np
from numpy.typing import NDArray

from ..core.audio import resample

OPUS_RATES = (8000, 12000, 16000, 24000, 48000)
"""The rates the Opus encoder takes; anything else is resampled to 16 kHz first."""

RESAMPLED_RATE = 16000

COMPRESSION_LEVEL = 0.93
"""libsndfile's Opus quality knob (0 best, 1 smallest): about 24 kbit/s for mono speech."""

SERIAL = 0x53504545
"""The Ogg stream serial number of every clip (``SPEE``); one stream per file, so any
fixed value is valid."""

MIME = "audio/ogg"
WAV_MIME = "audio/wav"


def _crc_table() -> tuple[int, ...]:
    """The Ogg page checksum: CRC-32, polynomial 0x04C11DB7, not reflected, start 0."""
    table = []
    for byte in range(256):
        value = byte << 24
        for _ in range(8):
            value = ((value << 1) ^ 0x04C11DB7) if value & 0x80000000 else value << 1
        table.append(value & 0xFFFFFFFF)
    return tuple(table)


_CRC = _crc_table()


def ogg_crc(data: bytes) -> int:
    """The checksum of one Ogg page whose checksum field is zero.

    >>> hex(ogg_crc(b"OggS"))
    '0x5fb0a94f'
    """
    crc = 0
    for byte in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ _CRC[((crc >> 24) ^ byte) & 0xFF]
    return crc


def with_serial(data: bytes, serial: int = SERIAL) -> bytes:
    """The Ogg file ``data`` with every page's serial number set to ``serial``."""
    out = bytearray(data)
    offset = 0
    while offset < len(out):
        if out[offset:offset + 4] != b"OggS":
            raise ValueError(f"not an Ogg page at byte {offset}")
        segments = out[offset + 26]
        length = 27 + segments + sum(out[offset + 27:offset + 27 + segments])
        struct.pack_into("<I", out, offset + 14, serial)
        struct.pack_into("<I", out, offset + 22, 0)
        struct.pack_into("<I", out, offset + 22, ogg_crc(bytes(out[offset:offset + length])))
        offset += length
    return bytes(out)


def encode_opus(samples: NDArray[np.floating], rate: int) -> bytes:
    """Float samples in [-1, 1], mono ``(n,)`` or stereo ``(n, 2)``, as Ogg Opus bytes,
    deterministic; a stereo clip gets the same quality knob (joint stereo, so less than
    twice the mono size)."""
    import soundfile as sf

    audio = np.asarray(samples, dtype=np.float32)
    if rate not in OPUS_RATES:
        audio, rate = resample(audio, rate, RESAMPLED_RATE), RESAMPLED_RATE
    channels = 1 if audio.ndim == 1 else audio.shape[1]
    buffer = io.BytesIO()
    with sf.SoundFile(buffer, "w", samplerate=rate, channels=channels, format="OGG",
                      subtype="OPUS", compression_level=COMPRESSION_LEVEL) as handle:
        handle.write(audio)
    return with_serial(buffer.getvalue())


@cache
def opus_available() -> bool:
    """Whether the installed libsndfile writes Opus in Ogg (1.0.29 and later do)."""
    import soundfile as sf

    return "OPUS" in sf.available_subtypes("OGG")


def encode(samples: NDArray[np.floating], rate: int) -> tuple[bytes, str]:
    """(bytes, MIME type) of ``samples``: Ogg Opus where the installed libsndfile writes
    it, else 16-bit WAV, so a page still plays on a machine with an older libsndfile."""
    if opus_available():
        return encode_opus(samples, rate), MIME
    import soundfile as sf

    buffer = io.BytesIO()
    sf.write(buffer, np.clip(np.asarray(samples, dtype=np.float32), -1.0, 1.0), rate,
             format="WAV", subtype="PCM_16")
    return buffer.getvalue(), WAV_MIME


def stereo(left: NDArray[np.floating], right: NDArray[np.floating]) -> NDArray[np.float32]:
    """Two mono signals as one frames x 2 array (left, right), the shorter padded with
    silence."""
    n = max(left.size, right.size)
    both = np.zeros((n, 2), dtype=np.float32)
    both[:left.size, 0] = left
    both[:right.size, 1] = right
    return both
