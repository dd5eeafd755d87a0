"""The varied audio the Silero tests run on, built from the two committed espeak-ng sentences.

Everything is deterministic (fixed seeds, exact sample counts), so a failure names a case
that can be rebuilt and listened to. Pauses are placed in whole samples between trimmed
sentences, so "a pause of 96 ms" is exactly 1536 samples of digital silence at 16 kHz.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from speecheval.core.audio import Audio, read_mono, resample

DATA = Path(__file__).resolve().parents[1] / "data" / "vad"
RATE = 16_000

Samples = NDArray[np.float32]


@cache
def speech(name: str) -> Samples:
    """A committed 16 kHz sentence (``a`` or ``b``), trimmed to its audible part."""
    audio = read_mono(DATA / f"speech_{name}.wav")
    assert audio.rate == RATE
    return audio.samples


def silence(ms: float, rate: int = RATE) -> Samples:
    return np.zeros(round(rate * ms / 1000), dtype=np.float32)


def noise(ms: float, level: float, seed: int, rate: int = RATE) -> Samples:
    """White Gaussian noise with standard deviation ``level``."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(round(rate * ms / 1000)) * level).astype(np.float32)


def tone(ms: float, hz: float, level: float, rate: int = RATE) -> Samples:
    t = np.arange(round(rate * ms / 1000)) / rate
    return (level * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def join(*parts: Samples) -> Samples:
    return np.concatenate(parts).astype(np.float32)


@dataclass(frozen=True)
class Case:
    """One parity clip: its name, audio, and the settings overrides it needs."""

    name: str
    audio: Audio
    overrides: tuple[tuple[str, Any], ...] = ()


def _pauses(pauses_ms: tuple[float, ...]) -> Samples:
    """Sentences alternating a, b, a, ... separated by the given pauses."""
    parts: list[Samples] = [silence(200)]
    for index, pause in enumerate(pauses_ms):
        parts += [speech("ab"[index % 2]), silence(pause)]
    parts += [speech("ab"[len(pauses_ms) % 2]), silence(300)]
    return join(*parts)


# One pause between the two sentences, around Silero's 100 ms minimum silence. The model's
# probability decays over a few windows after speech stops, so with these sentences a
# pause of 120 ms is still bridged and one of 150 ms splits (checked in the parity tests).
PAUSES_MS = (80, 100, 112, 120, 128, 136, 144, 150)


def pause_midpoint_s(ms: int) -> float:
    """Time of the middle of the pause in the ``pause_<ms>ms`` case."""
    return (len(silence(200)) + speech("a").size + round(RATE * ms / 1000) / 2) / RATE


def at_rate(samples: Samples, rate: int) -> Audio:
    return Audio(resample(samples, RATE, rate), rate)


def parity_cases() -> list[Case]:
    """The parity set: rates, pauses at the min-silence boundary, non-speech, edges."""
    a, b = speech("a"), speech("b")
    talk = join(silence(300), a, silence(400), b, silence(500))
    to_end = join(silence(250), a, silence(180), b)  # speech runs to the last sample
    mixed = join(a + noise(a.size * 1000 / RATE, 0.02, seed=3), silence(200),
                 noise(1000, 0.05, seed=4), b)
    cases = [
        Case("speech_16k", Audio(talk, RATE)),
        *[Case(f"pause_{ms}ms", Audio(_pauses((ms,)), RATE)) for ms in PAUSES_MS],
        Case("speech_8k", at_rate(talk, 8_000)),
        Case("pauses_8k", at_rate(_pauses((90, 110, 130)), 8_000)),
        Case("speech_to_end_16k", Audio(to_end, RATE)),
        Case("speech_to_end_8k_odd", at_rate(to_end[:-7], 8_000)),
        # 3 * n - 2 samples: Silero's decimated length scaled back passes the file's end.
        Case("speech_to_end_48k_odd", Audio(at_rate(to_end, 48_000).samples[:-2], 48_000)),
        Case("speech_32k", at_rate(talk, 32_000)),
        Case("speech_24k", at_rate(talk, 24_000)),
        Case("speech_22050", at_rate(to_end, 22_050)),
        Case("speech_in_noise", Audio(mixed, RATE)),
        Case("white_noise", Audio(noise(3000, 0.1, seed=1), RATE)),
        Case("loud_noise", Audio(np.clip(noise(2000, 0.7, seed=2), -1, 1), RATE)),
        Case("tones", Audio(join(tone(1000, 440, 0.5), tone(1000, 1000, 0.3),
                                 tone(500, 200, 0.9)), RATE)),
        Case("silence", Audio(silence(2000), RATE)),
        Case("clipped_speech", Audio(np.clip(talk * 8, -1, 1).astype(np.float32), RATE)),
        Case("empty", Audio(silence(0), RATE)),
        Case("short_100", Audio(a[4000:4100].copy(), RATE)),
        Case("short_511", Audio(a[4000:4511].copy(), RATE)),
        Case("short_513", Audio(a[4000:4513].copy(), RATE)),
        Case("short_8k_200", Audio(resample(a, RATE, 8_000)[2000:2200].copy(), 8_000)),
        Case("padding_30ms", Audio(_pauses((60, 100, 140)), RATE), (("speech_pad_ms", 30),)),
        Case("max_speech_longest_silence", Audio(_pauses((60, 90, 60)), RATE),
             (("max_speech_s", 2.0),)),
        Case("max_speech_last_silence", Audio(_pauses((60, 90, 60)), RATE),
             (("max_speech_s", 2.0), ("use_max_poss_sil_at_max_speech", False))),
        Case("threshold_0.3_silence_300", Audio(_pauses((150, 250, 350)), RATE),
             (("threshold", 0.3), ("min_silence_ms", 300))),
    ]
    return cases
