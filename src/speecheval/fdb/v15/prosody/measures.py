"""Prosody and quality of a reply before and after the overlap, and of the clean reply.

The output is split at the overlap end, word-aligned as the official
``eval_general_before_after.py`` does (:func:`split_time`): ``pre`` is the output before
the split, ``post`` the output after it, ``clean`` the whole reply to the clean input.
Each part's *speech* is its Silero speech segments joined end to end (the official script's
``trim_mode silero, collapse concat``). On that speech:

- pitch mean and SD (ddof 1) in Hz over voiced frames: Praat's pitch (autocorrelation)
  through praat-parselmouth, 10 ms steps, floor 50 Hz, ceiling 600 Hz;
- intensity mean and SD (ddof 1) in dB: Praat's intensity through praat-parselmouth,
  10 ms steps, minimum pitch 100 Hz (Praat's default, the official call's);
- MOS: DNSMOS P.835 overall (``ovrl_mos``, not personalised) from the ONNX models shipped
  in ``speechmos`` (it repeats speech shorter than 9.01 s to that length);

and from the part's words, words per minute = words / (time covered by the words) * 60,
so pauses between words do not count (the official ``_wpm_speech_only`` divides by the
span from the first word's start to the last word's end, pauses included).

Every backend is fixed: when praat-parselmouth or speechmos is missing the command stops
(exit 2) instead of falling back to librosa or torchaudio as the official script does. A
value that cannot be measured is missing with its reason, never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ....core.audio import Audio, resample
from ....core.extras import missing, require
from ....core.timeline import Span
from ....vad.base import Vad
from ...common.annotations import Word
from .paired_tests import Measured

MEASURES = ("pitch_mean_hz", "pitch_sd_hz", "intensity_mean_db", "intensity_sd_db",
            "words_per_minute", "dnsmos_ovrl")
PARTS = ("pre", "post", "clean")
PITCH_STEP_S = 0.01
PITCH_FLOOR_HZ = 50.0
PITCH_CEILING_HZ = 600.0
INTENSITY_STEP_S = 0.01
INTENSITY_MINIMUM_PITCH_HZ = 100.0
SILENCE_FLOOR_DB = -200.0
"""Praat gives digital silence -300 dB; frames at or below this are not speech (as the
official script)."""
MOS_RATE = 16_000
MIN_SPEECH_S = 0.1
"""Shorter speech than this has no audio measures (Praat's intensity needs 64 ms)."""


def measure_names(mos: bool) -> tuple[str, ...]:
    """The measures of a run: all of :data:`MEASURES`, or all but DNSMOS."""
    return MEASURES if mos else tuple(m for m in MEASURES if m != "dnsmos_ovrl")


NEEDED_FOR = "prosody (which has no fallback)"
EXTRA = "fdb15"
"""The extra that brings the prosody backends (core/extras.py)."""


def backends(mos: bool = True) -> dict[str, Any]:
    """The fixed backends, their versions and settings (recorded with every run).

    Raises InputError naming the package when one is not installed.
    """
    from importlib.metadata import PackageNotFoundError, version

    versions = {}
    for package in ("praat-parselmouth", "speechmos") if mos else ("praat-parselmouth",):
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            raise missing(NEEDED_FOR, package, EXTRA) from None
    return {
        "speech": "Silero speech segments of the part, joined end to end",
        "pitch": {"backend": "praat-parselmouth", "version": versions["praat-parselmouth"],
                  "method": "Sound.to_pitch (autocorrelation)", "time_step_s": PITCH_STEP_S,
                  "floor_hz": PITCH_FLOOR_HZ, "ceiling_hz": PITCH_CEILING_HZ,
                  "frames": "voiced (F0 > 0)", "sd": "ddof 1"},
        "intensity": {"backend": "praat-parselmouth", "version": versions["praat-parselmouth"],
                      "method": "Sound.to_intensity", "time_step_s": INTENSITY_STEP_S,
                      "minimum_pitch_hz": INTENSITY_MINIMUM_PITCH_HZ,
                      "frames": f"above {SILENCE_FLOOR_DB} dB", "sd": "ddof 1"},
        "mos": {"backend": "speechmos DNSMOS P.835", "version": versions["speechmos"],
                "value": "ovrl_mos", "personalized": False, "rate_hz": MOS_RATE}
        if mos else "not measured (--mos none)",
        "words_per_minute": "words / summed time covered by the words * 60",
        "min_speech_s": MIN_SPEECH_S,
    }


def split_time(words: Sequence[Word], overlap_end_us: int, duration_us: int) -> int:
    """Where the output is split, as the official ``_choose_split_time_word_aligned``.

    The start of the first word (in start order) that ends after the overlap end, so a
    word running across it goes to ``post``; the end of the last word when every word
    ends by then; the overlap end itself when there are no words. Clamped to the audio.

    >>> w = [Word("a", 1_000_000, 2_000_000), Word("b", 2_500_000, 3_000_000)]
    >>> split_time(w, 2_700_000, 9_000_000), split_time(w, 2_200_000, 9_000_000)
    (2500000, 2500000)
    >>> split_time(w, 3_000_000, 9_000_000), split_time([], 3_000_000, 2_000_000)
    (3000000, 2000000)
    """
    ordered = sorted(words, key=lambda w: w.start_us)
    split = overlap_end_us
    for word in ordered:
        if word.end_us > overlap_end_us:
            split = word.start_us
            break
    else:
        if ordered:
            split = ordered[-1].end_us
    return max(0, min(duration_us, split))


def partition_words(words: Sequence[Word], split_us: int) -> tuple[list[Word], list[Word]]:
    """Words ending by the split (pre) and the rest (post), as the official script."""
    return ([w for w in words if w.end_us <= split_us],
            [w for w in words if w.end_us > split_us])


def words_per_minute(words: Sequence[Word]) -> Measured:
    """Words over the time they cover (overlapping words counted once), per minute.

    Three words over [0, 0.5], [0.5, 1.0] and [2.0, 2.5]: 3 / 1.5 s * 60 = 120.

    >>> words_per_minute([Word("a", 0, 500_000), Word("b", 500_000, 1_000_000),
    ...                   Word("c", 2_000_000, 2_500_000)]).value
    120.0
    """
    if not words:
        return Measured(None, "no words")
    covered = 0
    reach = None
    for word in sorted(words, key=lambda w: w.start_us):
        start = word.start_us if reach is None else max(word.start_us, reach)
        if word.end_us > start:
            covered += word.end_us - start
        reach = word.end_us if reach is None else max(reach, word.end_us)
    if covered == 0:
        return Measured(None, "the words cover no time")
    return Measured(len(words) / (covered / 1e6) * 60.0)


def speech_of(audio: Audio, segments: Sequence[Span], part: Span) -> NDArray[np.float32]:
    """The samples of the speech segments inside ``part``, joined end to end."""
    pieces = []
    for segment in segments:
        start = max(segment.start_us, part.start_us)
        end = min(segment.end_us, part.end_us)
        if end > start:
            first = round(start * audio.rate / 1e6)
            last = min(audio.n_samples, round(end * audio.rate / 1e6))
            pieces.append(audio.samples[first:last])
    if not pieces:
        return np.zeros(0, dtype=np.float32)
    return np.concatenate(pieces).astype(np.float32)


def _mean_sd(values: NDArray[np.float64], what: str) -> tuple[Measured, Measured]:
    if values.size == 0:
        return Measured(None, f"no {what}"), Measured(None, f"no {what}")
    mean = Measured(float(np.mean(values)))
    if values.size == 1:
        return mean, Measured(None, f"one {what[:-1] if what.endswith('s') else what}")
    return mean, Measured(float(np.std(values, ddof=1)))


class AudioMeasures:
    """Pitch, intensity and (unless ``mos`` is False) DNSMOS of a stretch of speech, with
    the fixed backends; ``names`` are the measures it gives, words per minute included."""

    def __init__(self, mos: bool = True) -> None:
        self.identity = backends(mos)
        self.names = measure_names(mos)
        self._parselmouth = require("parselmouth", needed_for=NEEDED_FOR,
                                    package="praat-parselmouth", extra=EXTRA)
        self._dnsmos: Any = None
        if mos:
            self._dnsmos = require("speechmos.dnsmos", needed_for=NEEDED_FOR,
                                   package="speechmos", extra=EXTRA)

    def measure(self, speech: NDArray[np.float32], rate: int) -> dict[str, Measured]:
        if speech.size < MIN_SPEECH_S * rate:
            reason = f"under {MIN_SPEECH_S} s of speech"
            return {name: Measured(None, reason) for name in self.names
                    if name != "words_per_minute"}
        sound = self._parselmouth.Sound(speech.astype(np.float64), sampling_frequency=rate)
        pitch = sound.to_pitch(time_step=PITCH_STEP_S, pitch_floor=PITCH_FLOOR_HZ,
                               pitch_ceiling=PITCH_CEILING_HZ)
        f0 = np.asarray(pitch.selected_array["frequency"], dtype=np.float64)
        pitch_mean, pitch_sd = _mean_sd(f0[f0 > 0], "voiced frames")
        intensity = sound.to_intensity(minimum_pitch=INTENSITY_MINIMUM_PITCH_HZ,
                                       time_step=INTENSITY_STEP_S)
        levels = np.asarray(intensity.values, dtype=np.float64).ravel()
        intensity_mean, intensity_sd = _mean_sd(levels[levels > SILENCE_FLOOR_DB],
                                                "intensity frames")
        values = {"pitch_mean_hz": pitch_mean, "pitch_sd_hz": pitch_sd,
                  "intensity_mean_db": intensity_mean, "intensity_sd_db": intensity_sd}
        if self._dnsmos is not None:
            mono = speech if rate == MOS_RATE else resample(speech, rate, MOS_RATE)
            mos = self._dnsmos.run(np.clip(mono, -1.0, 1.0).astype(np.float32), MOS_RATE)
            values["dnsmos_ovrl"] = Measured(float(mos["ovrl_mos"]))
        return values


@dataclass(frozen=True)
class TrialProsody:
    """The three parts of one respond trial and where the output was split."""

    sample_id: str
    split_us: int
    parts: dict[str, dict[str, Measured]]

    def report_dict(self) -> dict[str, Any]:
        return {"sample_id": self.sample_id, "split_s": self.split_us / 1e6,
                "parts": {part: {name: measured.report_value() for name, measured in values.items()}
                          for part, values in self.parts.items()}}


def _part(measures: AudioMeasures, audio: Audio, segments: Sequence[Span], span: Span,
          words: Sequence[Word]) -> dict[str, Measured]:
    values = measures.measure(speech_of(audio, segments, span), audio.rate)
    return {name: (words_per_minute(words) if name == "words_per_minute" else values[name])
            for name in measures.names}


def trial_prosody(sample_id: str, overlap_end_us: int, output: Audio,
                  output_words: Sequence[Word], clean: Audio, clean_words: Sequence[Word],
                  vad: Vad, measures: AudioMeasures) -> TrialProsody:
    """Split the output at the overlap end and measure pre, post and the clean reply."""
    duration = round(output.n_samples * 1e6 / output.rate)
    split = split_time(output_words, overlap_end_us, duration)
    pre_words, post_words = partition_words(output_words, split)
    segments = vad.segments(output)
    clean_span = Span(0, round(clean.n_samples * 1e6 / clean.rate))
    parts = {
        "pre": _part(measures, output, segments, Span(0, split), pre_words),
        "post": _part(measures, output, segments, Span(split, duration), post_words),
        "clean": _part(measures, clean, vad.segments(clean), clean_span, clean_words),
    }
    return TrialProsody(sample_id, split, parts)
