"""What the cascade agent hears: the user's audio at 16 kHz and Silero's turn boundaries.

End of turn is Silero's own rule run live (:class:`~speecheval.vad.silero_stream.
SileroStream`, the computation the FDB metrics use on whole files): a speech segment closes
once ``silence_ms`` of silence follows it, so the close *is* the end of the user's turn,
and an onset is reported once ``min_speech_ms`` of speech makes it certain, which is when
the agent takes the user to have started talking (and stops talking itself: barge-in).
Audio at another rate is resampled to 16 kHz as it arrives (chunk-invariant), so the
boundaries and the audio kept for the recogniser do not depend on the packet size.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ...asr.base import SAMPLE_RATE
from ...core.audio import Samples
from ...core.pcm import to_int16
from ...core.stream_resample import StreamResampler
from ...vad.silero import SileroSettings
from ...vad.silero_stream import SileroBoundary, SileroStream
from .options import CascadeSettings


class Listener:
    """Feed user PCM16 with :meth:`hear`; get Silero boundaries; read back heard audio."""

    def __init__(self, rate: int, settings: CascadeSettings) -> None:
        self.rate = rate
        self._resampler = None if rate == SAMPLE_RATE else StreamResampler(rate, SAMPLE_RATE)
        self._vad = SileroStream(SAMPLE_RATE, SileroSettings(
            threshold=settings.options.vad_threshold, min_speech_ms=settings.options.min_speech_ms,
            min_silence_ms=settings.options.silence_ms))
        self._chunks: list[NDArray[np.int16]] = []
        self._heard = 0  # samples at 16 kHz

    @property
    def heard_s(self) -> float:
        """Seconds of user audio heard so far."""
        return self._heard / SAMPLE_RATE

    def hear(self, pcm: NDArray[np.int16]) -> list[SileroBoundary]:
        """Take the next user audio at ``rate``; return the boundaries now certain."""
        if self._resampler is not None:
            pcm = to_int16(self._resampler.process(pcm.astype(np.float32) / 32768.0))
        self._chunks.append(pcm)
        self._heard += pcm.size
        return self._vad.push(pcm)

    def audio(self, start_s: float, end_s: float) -> Samples:
        """Heard audio on ``[start_s, end_s)`` (clipped to what was heard), float32 16 kHz."""
        if len(self._chunks) > 1:
            self._chunks = [np.concatenate(self._chunks)]
        heard = self._chunks[0] if self._chunks else np.zeros(0, np.int16)
        first = max(0, round(start_s * SAMPLE_RATE))
        last = min(heard.size, round(end_s * SAMPLE_RATE))
        return (heard[first:last].astype(np.float32) / 32768.0).astype(np.float32)
