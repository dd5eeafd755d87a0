"""Telephone codecs on the user's send path: G.711 mu-law at 8 kHz, and Opus.

Mu-law is written here from ITU-T G.711 (the 8-segment companding law on 14-bit
samples, see :func:`mulaw_encode`), so the 8-bit codes are those of the standard and of
the CCITT reference code, byte for byte. The session audio is
band-limited and decimated to 8 kHz first, and interpolated back after decoding, with
the same low-pass filter (pass band to 3.5 kHz, stop band from 4.3 kHz), so a caller
sounds as on a telephone line: a 3.5 kHz tone passes, a 5 kHz tone does not.

Opus runs through libopus, as bundled by PyAV (``pip install speecheval[telephony]``),
imported only when a scenario uses it. Its decoder always speaks 48 kHz; libswresample
brings that back to the session rate. Both codecs add their own delay (the filters:
(taps - 1) samples together; Opus: its look-ahead and the resampler's), as a real
telephone path does, so the agent hears the caller slightly later than the script.

Each codec takes one frame of int16 samples and returns exactly one frame.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ....core.extras import require
from ...scenario.conditions import CodecSpec
from ..track import Track

TELEPHONE_RATE = 8000
MULAW_BIAS = 0x84  # 33 on 14-bit samples, 132 on 16-bit ones
MULAW_BIAS_14 = 0x21
PASS_HZ = 3500.0
STOP_HZ = 4300.0
STOP_DB = 60.0


def saturate(samples: NDArray[np.float64]) -> NDArray[np.int16]:
    """``samples`` rounded half to even and clipped to int16, as ``np.clip(np.round(x),
    -32768, 32767)`` does, in place (``samples`` is overwritten): on a frame's worth, a
    fraction of ``np.clip``'s per-call cost.

    >>> saturate(np.array([0.5, 1.5, -40000.0, 32767.6])).tolist()
    [0, 2, -32768, 32767]
    """
    np.rint(samples, out=samples)
    np.maximum(samples, -32768.0, out=samples)
    np.minimum(samples, 32767.0, out=samples)
    return samples.astype(np.int16)


def mulaw_encode(pcm: NDArray[np.int16]) -> NDArray[np.uint8]:
    """16-bit linear samples to G.711 mu-law bytes (as transmitted: bits inverted).

    G.711 companding works on 14-bit samples: the 16-bit sample is shifted right by two
    (an arithmetic shift, so -1 stays -1, as in the CCITT reference code that Python's
    ``audioop`` follows), its magnitude biased by 33 and clipped to 13 bits; the segment
    is the position of its highest bit above bit 5, the mantissa the four bits below it.

    >>> mulaw_encode(np.array([0, 1000, -1000, 32767, -1], np.int16)).tolist()
    [255, 206, 78, 128, 126]
    """
    x = pcm.astype(np.int32) >> 2
    mask = np.where(x < 0, 0x7F, 0xFF)
    magnitude = np.minimum(np.abs(x) + MULAW_BIAS_14, 0x1FFF)
    segment = np.floor(np.log2(magnitude)).astype(np.int32) - 5
    mantissa = (magnitude >> (segment + 1)) & 0x0F
    codes: NDArray[np.uint8] = (((segment << 4) | mantissa) ^ mask).astype(np.uint8)
    return codes


def mulaw_decode(codes: NDArray[np.uint8]) -> NDArray[np.int16]:
    """G.711 mu-law bytes back to 16-bit linear samples (the segment's mid-point).

    >>> mulaw_decode(np.array([255, 206, 78, 128], np.uint8)).tolist()
    [0, 988, -988, 32124]
    """
    code = ~codes.astype(np.int32) & 0xFF
    exponent = (code >> 4) & 0x07
    mantissa = code & 0x0F
    magnitude = (((mantissa << 3) + MULAW_BIAS) << exponent) - MULAW_BIAS
    return np.where(code & 0x80, -magnitude, magnitude).astype(np.int16)


def lowpass_taps(rate: int) -> NDArray[np.float64]:
    """A linear-phase FIR low-pass for the telephone band at ``rate``: a Kaiser-windowed
    sinc cut at the middle of [PASS_HZ, STOP_HZ], long enough for STOP_DB of rejection
    (Kaiser's formulas: N = (A - 8) / (2.285 * transition in rad/sample))."""
    transition = 2 * np.pi * (STOP_HZ - PASS_HZ) / rate
    n = int(np.ceil((STOP_DB - 8.0) / (2.285 * transition))) | 1
    beta = 0.1102 * (STOP_DB - 8.7)
    cutoff = (PASS_HZ + STOP_HZ) / 2 / rate  # cycles per sample
    k = np.arange(n) - (n - 1) / 2
    taps: NDArray[np.float64] = 2 * cutoff * np.sinc(2 * cutoff * k) * np.kaiser(n, beta)
    return taps / float(taps.sum())


def _roundtrip_table() -> NDArray[np.int16]:
    """What every int16 sample becomes through the codec, indexed by its 16 bits."""
    every = np.arange(-32768, 32768, dtype=np.int16)
    table = np.empty(65536, dtype=np.int16)
    table[every.view(np.uint16)] = mulaw_decode(mulaw_encode(every))
    return table


_ROUNDTRIP = _roundtrip_table()


def mulaw_roundtrip(pcm: NDArray[np.int16]) -> NDArray[np.int16]:
    """``mulaw_decode(mulaw_encode(pcm))``, by one table look-up per sample."""
    return _ROUNDTRIP[np.ascontiguousarray(pcm, dtype=np.int16).view(np.uint16)]


class MulawPath:
    """Session rate -> 8 kHz -> mu-law bytes -> 8 kHz -> session rate, a block at a time.

    The rate is ``m`` times 8000 and a frame a whole number of milliseconds, so every
    block starts on an 8 kHz sample and the decimation phase never slips. Both filters
    run as ``m`` polyphase branches (taps ``r, r + m, ...``): the decimating one computes
    only the samples it keeps, the interpolating one skips the zeros between the 8 kHz
    samples, so each does ``1/m`` of a plain convolution's work for the same outputs.

    The filters' inputs are kept whole (the microphone signal, and the decoded 8 kHz
    samples), so a block may be worked out again from any earlier sample (:meth:`block`
    at a position already passed): the send path does, when a turn starts or the
    agent's audio changes the echo inside a stretch it computed ahead. Each output sample
    is the same sum of the same products however the signal is cut into blocks. A block
    of silence after silence (the caller between turns, with no noise bed) is silence,
    and is not filtered.
    """

    def __init__(self, rate: int) -> None:
        self.factor = m = rate // TELEPHONE_RATE
        taps = lowpass_taps(rate)
        # each branch's taps reversed: ``np.correlate`` with them gives ``np.convolve``'s
        # sums bit for bit (that is how numpy convolves), without its per-call checks
        self.branches = [np.ascontiguousarray(taps[r::m][::-1]) for r in range(m)]
        # what each int16 sample comes back as from mu-law, times m (the interpolation's
        # gain), as the float the filter reads: one look-up a sample, all exact
        self.decoded_gain = _ROUNDTRIP.astype(np.float64) * m
        self.pad = taps.size - 1  # silence before sample 0 of the microphone track
        self.narrow_pad = -(-self.pad // m)  # and of the decoded 8 kHz track
        self.mic: Track[np.float64] = Track(1 << 16, np.float64)
        self.decoded: Track[np.float64] = Track(1 << 14, np.float64)
        self.next = 0

    def __call__(self, frame: NDArray[np.int16]) -> NDArray[np.int16]:
        """The next frame through the codec (the frames played one after another)."""
        out = self.block(self.next, frame)
        self.next += frame.size
        return out

    def forget(self, before: int) -> None:
        """No block will start before sample ``before`` again: the filters keep only the
        input they need from there on."""
        # a block from sample s reads the microphone track from its index s (sample
        # s - pad, after the pad of silence) and the decoded one from index s / m
        self.mic.forget(before)
        self.decoded.forget(before // self.factor)

    def block(self, start: int, pcm: NDArray[np.int16]) -> NDArray[np.int16]:
        """``pcm``, the microphone from sample ``start`` on, through the codec; everything
        before ``start`` must have gone through already."""
        m, n = self.factor, pcm.size
        if m == 1:
            return mulaw_roundtrip(pcm)
        at = self.pad + start
        k0 = self.narrow_pad + start // m
        if not (pcm.any() or self.mic.view(start, at).any()
                or self.decoded.view(start // m, k0).any()):
            # silence in and in both filters' memories (all they read, see :meth:`forget`):
            # every sum below is of zeros, and zero goes through mu-law as zero
            self.mic.write(at, np.zeros(n))
            self.decoded.write(k0, np.zeros(n // m))
            return np.zeros(n, dtype=np.int16)
        self.mic.write(at, pcm.astype(np.float64))
        # kept sample k: sum over phases r of taps[r + i m] * mic[start + k m - r - i m]
        narrow = np.zeros(n // m)
        for r, h in enumerate(self.branches):
            narrow += np.correlate(self.mic.view(at - r - (h.size - 1) * m, at + n)[::m][
                :n // m + h.size - 1], h, "valid")
        narrow16 = saturate(narrow)
        self.decoded.write(k0, self.decoded_gain[narrow16.view(np.uint16)])
        # output start + k m + r: sum over i of taps[r + i m] * decoded[start / m + k - i]
        up = np.empty(n)
        for r, h in enumerate(self.branches):
            up[r::m] = np.correlate(self.decoded.view(k0 - h.size + 1, k0 + n // m), h,
                                    "valid")
        return saturate(up)


class OpusPath:
    """Each frame encoded by libopus at the scenario's bitrate and decoded again; the
    decoded audio (48 kHz, resampled to the session rate) is played out frame by frame
    from a queue, silence until the codec's delay has passed."""

    def __init__(self, rate: int, frame: int, bitrate: int) -> None:
        # PyAV, with libopus; only when a scenario asks for Opus
        av = require("av", needed_for="codec opus", package="PyAV", extra="telephony")
        self.av: Any = av
        self.rate, self.frame, self.pts = rate, frame, 0
        self.encoder = av.CodecContext.create("libopus", "w")
        self.encoder.sample_rate = rate
        self.encoder.layout = "mono"
        self.encoder.format = "s16"
        self.encoder.bit_rate = bitrate
        self.encoder.options = {"frame_duration": str(frame * 1000 // rate),
                                "application": "voip"}
        self.decoder = av.CodecContext.create("libopus", "r")
        self.resampler = av.AudioResampler(format="s16", layout="mono", rate=rate)
        self.queue = np.zeros(0, dtype=np.int16)

    def forget(self, before: int) -> None:
        """Nothing to forget: the encoder keeps only its own state."""

    def block(self, start: int, pcm: NDArray[np.int16]) -> NDArray[np.int16]:
        """One frame through libopus; frames must come in order, once each (the encoder
        keeps state that cannot be wound back)."""
        if start != self.pts:
            raise ValueError(f"opus frames must come in order: got sample {start}, "
                             f"expected {self.pts}")
        return self(pcm)

    def __call__(self, frame: NDArray[np.int16]) -> NDArray[np.int16]:
        raw = self.av.AudioFrame.from_ndarray(frame.reshape(1, -1), format="s16",
                                              layout="mono")
        raw.sample_rate, raw.pts = self.rate, self.pts
        self.pts += frame.size
        decoded = [self.queue]
        for packet in self.encoder.encode(raw):
            for wide in self.decoder.decode(packet):
                wide.pts = None
                for narrow in self.resampler.resample(wide):
                    decoded.append(narrow.to_ndarray().reshape(-1).astype(np.int16))
        queue = np.concatenate(decoded)
        out = np.zeros(self.frame, dtype=np.int16)
        take = min(self.frame, queue.size)
        out[self.frame - take:] = queue[:take]
        self.queue = queue[take:]
        return out


Codec = MulawPath | OpusPath  # with ``block(start, pcm)``: the samples from ``start`` on


def make_codec(spec: CodecSpec, rate: int, frame: int) -> Codec:
    """The codec a scenario declares, ready for its frames."""
    if spec.kind == "mulaw":
        return MulawPath(rate)
    assert spec.bitrate is not None  # the scenario reader requires it for opus
    return OpusPath(rate, frame, spec.bitrate)
