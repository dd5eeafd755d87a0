"""Output on silence, music and low-speech samples (spec: 归一化与指标).

On such samples the right transcript is (nearly) empty, so an error rate has no
denominator. Two numbers replace it: the share of samples with hallucinated output, and
hallucinated characters per second of audio. Characters are CER tokens after
normalisation, so punctuation and spaces never count.

What is hallucinated depends on the sample. On silence and music there is no speech, so
every output character is. A low-speech sample has a little real speech and a reference
transcript for it, so only the characters that the character alignment against that
reference **inserts** are hallucinated; correctly transcribed (or misheard) speech is not,
and such a sample counts as non-empty only when it has an insertion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...core.results import FieldwiseSum, Result
from ...core.share import fraction
from .normalize import normalize
from .rates import text_error_counts
from .tokenize import char_tokens


@dataclass(frozen=True)
class HallucinationCounts(FieldwiseSum, Result, kind="transcripts.hallucination_counts"):
    """Samples, samples with hallucinated output, hallucinated characters, audio seconds.

    >>> total = sum([hallucination("嗯嗯。", 2.0), hallucination(" ... ", 3.0)])
    >>> total.nonempty_rate, total.chars_per_second
    (0.5, 0.4)
    """

    samples: int
    nonempty_samples: int
    characters: int
    duration_s: float

    def __post_init__(self) -> None:
        if not 0 <= self.nonempty_samples <= self.samples or self.characters < 0:
            raise ValueError(f"inconsistent hallucination counts: {self!r}")
        if not math.isfinite(self.duration_s) or self.duration_s < 0:
            raise ValueError(f"duration must be finite and non-negative: {self.duration_s!r}")
        if (self.characters > 0) != (self.nonempty_samples > 0):
            raise ValueError(f"characters and non-empty samples disagree: {self!r}")

    @property
    def nonempty_rate(self) -> float | None:
        """Share of samples with a hallucinated character; ``None`` with no samples."""
        return fraction(self.nonempty_samples, self.samples)

    @property
    def chars_per_second(self) -> float | None:
        """Hallucinated characters per second of audio; ``None`` with no audio."""
        return self.characters / self.duration_s if self.duration_s > 0 else None

    def report_dict(self) -> dict[str, Any]:
        """Counts and rates by name."""
        return {"samples": self.samples, "nonempty_samples": self.nonempty_samples,
                "nonempty_output_rate": self.nonempty_rate, "characters": self.characters,
                "duration_s": self.duration_s,
                "hallucinated_chars_per_second": self.chars_per_second}


def hallucination(hypothesis: str, duration_s: float,
                  reference: str | None = None) -> HallucinationCounts:
    """Counts for one sample of ``duration_s`` seconds.

    Without ``reference`` (silence, music) every output character counts; with it
    (low speech) only the characters inserted against the reference.

    Hand check, low speech: reference ``yes`` is 3 characters, output ``yes, yes okay``
    is 10 (y e s y e s o k a y); the first 3 match and 7 are inserted: 7 / 4 s = 1.75.

    >>> hallucination("yes, yes okay", 4.0, reference="yes").chars_per_second
    1.75
    >>> hallucination("yes", 4.0, reference="Yes!").nonempty_samples
    0
    >>> hallucination("yes", 4.0).characters
    3
    """
    if reference is None:
        chars = len(char_tokens(normalize(hypothesis)))
    else:
        chars = text_error_counts(reference, hypothesis, "char").insertions
    return HallucinationCounts(1, int(chars > 0), chars, duration_s)
