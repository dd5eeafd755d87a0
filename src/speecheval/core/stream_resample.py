"""Chunk-by-chunk rational resampling with carried filter state.

Transports receive audio in packets (a 24 kHz OpenAI Realtime delta into a 16 kHz
session). Resampling each packet on its own would zero-pad both packet edges and click
at every boundary; this resampler keeps the polyphase filter's state between calls, so
feeding a signal in chunks of any size gives the same samples as feeding it whole.

The filter is the same family :func:`speecheval.core.audio.resample` uses (a Kaiser
windowed-sinc low-pass, beta 5, ten zero crossings per side), run causally: the output
is delayed by ``delay_s`` (about 0.6 ms for 16 kHz <-> 24 kHz), and after ``n`` input
samples exactly ``ceil(n * rate_out / rate_in)`` output samples have been produced.
"""

from __future__ import annotations

from math import gcd

import numpy as np
from numpy.typing import NDArray
from scipy.signal import firwin, lfilter

from .pcm import to_int16

_HALF_ZERO_CROSSINGS = 10
_KAISER_BETA = 5.0


class StreamResampler:
    """Resample a stream from ``rate_in`` to ``rate_out`` Hz, one chunk at a time.

    >>> r = StreamResampler(24000, 16000)
    >>> x = np.sin(np.arange(2400) / 10).astype(np.float32)
    >>> whole = StreamResampler(24000, 16000).process(x)
    >>> parts = np.concatenate([r.process(x[:7]), r.process(x[7:1000]), r.process(x[1000:])])
    >>> whole.shape, bool(np.allclose(whole, parts, atol=1e-6))
    ((1600,), True)
    """

    def __init__(self, rate_in: int, rate_out: int) -> None:
        if rate_in <= 0 or rate_out <= 0:
            raise ValueError(f"sample rates must be positive, got {rate_in} -> {rate_out}")
        common = gcd(rate_in, rate_out)
        self.up = rate_out // common
        self.down = rate_in // common
        self.identity = self.up == self.down == 1
        factor = max(self.up, self.down)
        taps = 2 * _HALF_ZERO_CROSSINGS * factor + 1
        self._taps = np.ones(1) if self.identity else (
            firwin(taps, 1.0 / factor, window=("kaiser", _KAISER_BETA)) * self.up)
        taps = self._taps.size
        self._state = np.zeros(taps - 1, dtype=np.float64)
        self._phase = 0  # index, in the current upsampled chunk, of the next output sample
        self.delay_s = (taps - 1) / 2 / (rate_in * self.up)

    def process(self, samples: NDArray[np.floating]) -> NDArray[np.float32]:
        """Resample the next chunk of the stream (float samples in [-1, 1])."""
        chunk = np.asarray(samples, dtype=np.float64)
        if self.identity:
            return chunk.astype(np.float32)
        if chunk.size == 0:
            return np.zeros(0, dtype=np.float32)
        upsampled = np.zeros(chunk.size * self.up, dtype=np.float64)
        upsampled[:: self.up] = chunk
        filtered, self._state = lfilter(self._taps, 1.0, upsampled, zi=self._state)
        out = filtered[self._phase :: self.down]
        self._phase = (self._phase - upsampled.size) % self.down
        return np.asarray(out, dtype=np.float32)

    def process_pcm16(self, pcm16: bytes) -> bytes:
        """Resample little-endian PCM16 bytes, rounding and clipping back to int16."""
        if self.identity:
            return pcm16
        samples = np.frombuffer(pcm16, dtype="<i2").astype(np.float64) / 32768.0
        out = self.process(samples)
        return float_to_pcm16(out)


def float_to_pcm16(samples: NDArray[np.floating]) -> bytes:
    """Float samples in [-1, 1] to little-endian PCM16 bytes (rounded, clipped).

    >>> float_to_pcm16(np.array([0.5, -1.5]))
    b'\\x00@\\x00\\x80'
    """
    return to_int16(samples).astype("<i2").tobytes()
