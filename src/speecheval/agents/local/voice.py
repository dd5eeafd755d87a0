"""Reply audio for the local agents: espeak-ng speech when installed (Debian's program or
the ``speech`` extra's library, :mod:`speecheval.core.espeak`), else a voiced signal.

Real speech (espeak-ng) makes demo recordings worth listening to and exercises
transcript paths; the synthetic fallback keeps tests meaningful on a machine without
it: a harmonic series on a gliding 140 Hz pitch, shaped into 4 syllables a second, with
an RMS level that an energy VAD sees as speech. Both are deterministic.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import scipy.signal  # noqa: F401  # here, not at the first reply: a live reply must not wait for it
from numpy.typing import NDArray

from ...core import espeak
from ...core.audio import read_mono, resample
from ...core.espeak import speak_to_wav
from ...core.pcm import to_int16

SYNTHETIC_LEVEL_DBFS = -20.0
_F0_HZ = 140.0
_SYLLABLE_HZ = 4.0
_HARMONICS = 12


def espeak_available() -> bool:
    return espeak.available()


def espeak_speech(text: str, rate: int) -> NDArray[np.int16]:
    """Speak ``text`` with espeak-ng and return PCM16 at ``rate`` Hz."""
    with tempfile.TemporaryDirectory(prefix="speecheval-espeak-") as tmp:
        wav = Path(tmp) / "reply.wav"
        speak_to_wav(text, wav, voice="en-us", wpm=165, timeout_s=30).check_returncode()
        audio = read_mono(wav)
    samples = resample(audio.samples, audio.rate, rate)
    return to_int16(samples)


def synthetic_speech(duration_ms: int, rate: int,
                     level_dbfs: float = SYNTHETIC_LEVEL_DBFS) -> NDArray[np.int16]:
    """A speech-like voiced signal of ``duration_ms`` at ``level_dbfs`` RMS.

    >>> pcm = synthetic_speech(1000, 16000)
    >>> pcm.size, round(float(20 * np.log10(np.sqrt(np.mean((pcm / 32768.0) ** 2)))), 1)
    (16000, -20.0)
    """
    n = rate * duration_ms // 1000
    t = np.arange(n, dtype=np.float64) / rate
    f0 = _F0_HZ * (1.0 + 0.08 * np.sin(2 * np.pi * 0.7 * t))
    phase = 2 * np.pi * np.cumsum(f0) / rate
    harmonics = np.arange(1, _HARMONICS + 1)
    nyquist_ok = (harmonics[:, None] * f0[None, :]) < rate / 2
    voiced = (np.sin(harmonics[:, None] * phase[None, :]) / harmonics[:, None]
              * nyquist_ok).sum(axis=0)
    envelope = 0.35 + 0.65 * np.sin(np.pi * _SYLLABLE_HZ * t) ** 2
    signal = voiced * envelope
    rms = float(np.sqrt(np.mean(signal**2))) if n else 1.0
    return to_int16(signal * (10 ** (level_dbfs / 20.0) / rms))


def reply_audio(text: str, rate: int, voice: str, reply_ms: int | None) -> NDArray[np.int16]:
    """The reply for one turn; ``voice`` is ``espeak``, ``synthetic`` or ``auto``.

    ``reply_ms`` cuts or pads the reply to a fixed length (None: espeak's own length,
    1500 ms for the synthetic voice).
    """
    use_espeak = voice == "espeak" or (voice == "auto" and espeak_available())
    pcm = espeak_speech(text, rate) if use_espeak else synthetic_speech(reply_ms or 1500, rate)
    if reply_ms is None:
        return pcm
    n = rate * reply_ms // 1000
    return pcm[:n] if pcm.size >= n else np.concatenate([pcm, np.zeros(n - pcm.size, np.int16)])
