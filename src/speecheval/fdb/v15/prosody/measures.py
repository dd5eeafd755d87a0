"""Prosody and quality of a reply before and after the overlap, and of the clean reply.

The output is split at the overlap end, word-aligned as the official
``eval_general_before_after.py`` does (:func:`split_time`): ``pre`` is the output before
the split, ``post`` the output after it, ``clean`` the whole reply to the clean input.
Each part is trimmed as the official script's ``--trim_mode silero`` (collapse ``concat``)
trims it: Silero runs on the part's own audio with the script's settings
(:data:`TRIM_SETTINGS`) and the speech segments are joined end to end; a part in which
Silero finds no speech is kept whole, as the script keeps it. On that speech:

- pitch mean and SD (ddof 1) in Hz over voiced frames: Praat's pitch (autocorrelation)
  through praat-parselmouth, 10 ms steps, floor 50 Hz, ceiling 600 Hz;
- intensity mean and SD (ddof 1) in dB: Praat's intensity through praat-parselmouth,
  10 ms steps, minimum pitch 100 Hz (Praat's default, the official call's); Praat's dB is
  relative to 2e-5 (its sound pressure reference), not to full scale;
- intensity mean and SD (ddof 1) in dBFS, the unit of the paper's Tables 4 and 5: 20
  log10 of the RMS of consecutive 10 ms frames (whole frames, RMS floored at 1e-10), as the
  script's librosa path computes it;
- MOS: DNSMOS P.835 overall (``ovrl_mos``, not personalised) from the ONNX models shipped
  in ``speechmos`` (it repeats speech shorter than 9.01 s to that length), in place of the
  paper's UTMOSv2, whose weights are not available offline (UTMOS scores a lab computed
  can be given from a file, :mod:`.utmos_file`);

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
from ....vad.silero import SileroSettings, SileroVad
from ...common.annotations import Word
from .paired_tests import Measured

MEASURES = ("pitch_mean_hz", "pitch_sd_hz", "intensity_mean_db", "intensity_sd_db",
            "intensity_mean_dbfs", "intensity_sd_dbfs", "words_per_minute", "dnsmos_ovrl")
PARTS = ("pre", "post", "clean")
PITCH_STEP_S = 0.01
PITCH_FLOOR_HZ = 50.0
PITCH_CEILING_HZ = 600.0
INTENSITY_STEP_S = 0.01
INTENSITY_MINIMUM_PITCH_HZ = 100.0
SILENCE_FLOOR_DB = -200.0
"""Praat gives digital silence -300 dB; frames at or below this are not speech (as the
official script)."""
DBFS_FRAME_S = 0.01
DBFS_RMS_FLOOR = 1e-10
MOS_RATE = 16_000
MOS_SUBSTITUTION = ("DNSMOS P.835 overall in place of UTMOSv2 (the paper's MOS), whose "
                    "weights are not available offline")
TRIM_SETTINGS = SileroSettings(threshold=0.5, min_speech_ms=60, min_silence_ms=50,
                               speech_pad_ms=30)
"""``eval_general_before_after.py``'s Silero trim: its ``--silero_threshold``,
``--silero_min_speech_ms`` and ``--silero_min_silence_ms`` defaults, and Silero's own
30 ms padding, which the script does not change."""
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
        "speech": ("each part trimmed by Silero on its own audio (threshold "
                   f"{TRIM_SETTINGS.threshold}, min speech {TRIM_SETTINGS.min_speech_ms} ms, "
                   f"min silence {TRIM_SETTINGS.min_silence_ms} ms, pad "
                   f"{TRIM_SETTINGS.speech_pad_ms} ms: the official script's trim_mode "
                   "silero), segments joined end to end; no speech found: the part whole"),
        "pitch": {"backend": "praat-parselmouth", "version": versions["praat-parselmouth"],
                  "method": "Sound.to_pitch (autocorrelation)", "time_step_s": PITCH_STEP_S,
                  "floor_hz": PITCH_FLOOR_HZ, "ceiling_hz": PITCH_CEILING_HZ,
                  "frames": "voiced (F0 > 0)", "sd": "ddof 1"},
        "intensity": {"backend": "praat-parselmouth", "version": versions["praat-parselmouth"],
                      "method": "Sound.to_intensity", "time_step_s": INTENSITY_STEP_S,
                      "minimum_pitch_hz": INTENSITY_MINIMUM_PITCH_HZ,
                      "frames": f"above {SILENCE_FLOOR_DB} dB", "sd": "ddof 1",
                      "unit": "dB re 2e-5 (Praat)"},
        "intensity_dbfs": {"backend": "numpy", "unit": "dBFS",
                           "method": "20 log10 RMS of consecutive whole frames",
                           "frame_s": DBFS_FRAME_S, "rms_floor": DBFS_RMS_FLOOR,
                           "sd": "ddof 1"},
        "mos": {"backend": "speechmos DNSMOS P.835", "version": versions["speechmos"],
                "value": "ovrl_mos", "personalized": False, "rate_hz": MOS_RATE,
                "substitution": MOS_SUBSTITUTION}
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


def part_audio(audio: Audio, part: Span) -> Audio:
    """The samples of ``part`` (microseconds) of ``audio``."""
    first = round(part.start_us * audio.rate / 1e6)
    last = min(audio.n_samples, round(part.end_us * audio.rate / 1e6))
    return Audio(audio.samples[first:max(first, last)], audio.rate)


def joined_speech(audio: Audio, segments: Sequence[Span]) -> NDArray[np.float32]:
    """The samples of ``segments`` joined end to end; ``audio`` whole when there are none
    (the official script keeps a part in which Silero finds no speech)."""
    pieces = [part_audio(audio, segment).samples for segment in segments]
    pieces = [piece for piece in pieces if piece.size]
    if not pieces:
        return audio.samples.astype(np.float32)
    return np.concatenate(pieces).astype(np.float32)


def dbfs_frames(speech: NDArray[np.float32], rate: int) -> NDArray[np.float64]:
    """20 log10 RMS of each whole :data:`DBFS_FRAME_S` frame (RMS floored at 1e-10).

    Two 10 ms frames at 16 kHz, of 0.5 and of 0.05 constant: -6.02 and -26.02 dBFS.

    >>> x = np.r_[np.full(160, 0.5), np.full(160, 0.05), np.zeros(5)].astype(np.float32)
    >>> [round(float(v), 2) for v in dbfs_frames(x, 16000)]
    [-6.02, -26.02]
    """
    frame = max(1, round(rate * DBFS_FRAME_S))
    count = speech.size // frame
    frames = speech[: count * frame].astype(np.float64).reshape(count, frame)
    rms = np.sqrt(np.mean(frames ** 2, axis=1))
    return np.asarray(20.0 * np.log10(np.maximum(rms, DBFS_RMS_FLOOR)), dtype=np.float64)


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
        self.trim_vad = SileroVad(TRIM_SETTINGS)
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
        dbfs_mean, dbfs_sd = _mean_sd(dbfs_frames(speech, rate), "10 ms frames")
        values = {"pitch_mean_hz": pitch_mean, "pitch_sd_hz": pitch_sd,
                  "intensity_mean_db": intensity_mean, "intensity_sd_db": intensity_sd,
                  "intensity_mean_dbfs": dbfs_mean, "intensity_sd_dbfs": dbfs_sd}
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


def _part(measures: AudioMeasures, audio: Audio, span: Span,
          words: Sequence[Word]) -> dict[str, Measured]:
    part = part_audio(audio, span)
    speech = joined_speech(part, measures.trim_vad.segments(part)) if part.n_samples else (
        part.samples)
    values = measures.measure(speech, audio.rate)
    return {name: (words_per_minute(words) if name == "words_per_minute" else values[name])
            for name in measures.names}


def trial_prosody(sample_id: str, overlap_end_us: int, output: Audio,
                  output_words: Sequence[Word], clean: Audio, clean_words: Sequence[Word],
                  measures: AudioMeasures) -> TrialProsody:
    """Split the output at the overlap end and measure pre, post and the clean reply, each
    trimmed by its own Silero run."""
    duration = round(output.n_samples * 1e6 / output.rate)
    split = split_time(output_words, overlap_end_us, duration)
    pre_words, post_words = partition_words(output_words, split)
    clean_span = Span(0, round(clean.n_samples * 1e6 / clean.rate))
    parts = {
        "pre": _part(measures, output, Span(0, split), pre_words),
        "post": _part(measures, output, Span(split, duration), post_words),
        "clean": _part(measures, clean, clean_span, clean_words),
    }
    return TrialProsody(sample_id, split, parts)
