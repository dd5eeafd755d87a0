"""Typed, frozen diarization results that add up over files.

Times are kept as integer microseconds (exact sums, no float drift across files) and
exposed in seconds. Every result type has ``__add__`` so ``sum(per_file_results)`` is the
corpus total, and ``__post_init__`` checks the invariants a correct scorer cannot break,
so a bug shows up as an error rather than as a plausible number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from ...core.results import FieldwiseSum, Result
from ...core.timebase import from_us
from .differences import Differences
from .settings import COMPAT_MODES as COMPAT_MODES  # re-exported: long imported from here
from .settings import Compat as Compat

Track = Literal["main", "lattifai_parity"]
MappingRegion = Literal["uem", "uem_minus_collar"]


@dataclass(frozen=True)
class DerComponents(FieldwiseSum, Result, kind="transcripts.der_components"):
    """Speaker-time components of DER over one scoring region (md-eval's definitions).

    ``scored_us`` is reference speaker time (a region with two reference speakers counts
    twice), ``region_us`` the duration of the region itself.

    >>> a = DerComponents(scored_us=10_000_000, missed_us=1_000_000, false_alarm_us=500_000,
    ...                   confusion_us=1_000_000, region_us=12_000_000)
    >>> a.der
    0.25
    >>> (a + a).der, (a + a).scored
    (0.25, 20.0)
    """

    scored_us: int
    missed_us: int
    false_alarm_us: int
    confusion_us: int
    region_us: int

    def __post_init__(self) -> None:
        values = (self.scored_us, self.missed_us, self.false_alarm_us, self.confusion_us,
                  self.region_us)
        if min(values) < 0:
            raise ValueError(f"negative DER component in {self!r}")
        if self.missed_us + self.confusion_us > self.scored_us:
            raise ValueError(f"missed + confusion exceeds scored speaker time in {self!r}")

    @property
    def error_us(self) -> int:
        """Missed + false alarm + confusion."""
        return self.missed_us + self.false_alarm_us + self.confusion_us

    @property
    def der(self) -> float | None:
        """Errors over scored reference speaker time; ``None`` when nothing is scored."""
        return None if self.scored_us == 0 else self.error_us / self.scored_us

    @property
    def scored(self) -> float:
        """Scored reference speaker time in seconds."""
        return from_us(self.scored_us)

    @property
    def missed(self) -> float:
        """Missed speaker time in seconds."""
        return from_us(self.missed_us)

    @property
    def false_alarm(self) -> float:
        """False-alarm speaker time in seconds."""
        return from_us(self.false_alarm_us)

    @property
    def confusion(self) -> float:
        """Speaker confusion time in seconds."""
        return from_us(self.confusion_us)


@dataclass(frozen=True)
class JerComponents(FieldwiseSum, Result, kind="transcripts.jer_components"):
    """Jaccard error rate as dscore defines it: the mean over reference speakers.

    Each reference speaker contributes ``1 - |R ∩ H| / |R ∪ H|`` with its paired system
    speaker (1 when unpaired); the corpus value is the mean over all reference speakers of
    all files, so the components are the sum of those errors and the speaker count.

    >>> JerComponents(speaker_error_sum=0.5, speakers=2).jer
    0.25
    """

    speaker_error_sum: float
    speakers: int

    def __post_init__(self) -> None:
        if self.speakers < 0 or not 0.0 <= self.speaker_error_sum <= self.speakers + 1e-9:
            raise ValueError(f"JER error sum must lie in [0, speakers]: {self!r}")

    @property
    def jer(self) -> float | None:
        """Mean speaker Jaccard error; ``None`` when there is no reference speaker."""
        return None if self.speakers == 0 else self.speaker_error_sum / self.speakers


@dataclass(frozen=True)
class SpeakerCount(FieldwiseSum, Result, kind="transcripts.speaker_count"):
    """Speaker count error over files: system speakers minus reference speakers.

    A speaker counts in a file when it has speech inside the file's UEM.

    >>> (SpeakerCount(1, 1, 0, 0, 2, 2) + SpeakerCount(1, 0, 2, -2, 4, 2)).mean_abs_error
    1.0
    """

    files: int
    exact_files: int
    abs_error_sum: int
    signed_error_sum: int
    ref_speakers: int
    hyp_speakers: int

    def __post_init__(self) -> None:
        if not 0 <= self.exact_files <= self.files:
            raise ValueError(f"exact files outside [0, files] in {self!r}")
        if abs(self.signed_error_sum) > self.abs_error_sum:
            raise ValueError(f"|signed error| exceeds absolute error in {self!r}")
        if self.abs_error_sum < self.files - self.exact_files:
            raise ValueError(f"each inexact file adds at least 1 to the error: {self!r}")
        if self.signed_error_sum != self.hyp_speakers - self.ref_speakers:
            raise ValueError(f"signed error must be hyp - ref speakers in {self!r}")

    @property
    def accuracy(self) -> float | None:
        """Share of files whose speaker count is exact."""
        return None if self.files == 0 else self.exact_files / self.files

    @property
    def mean_abs_error(self) -> float | None:
        """Mean absolute speaker count error per file, in speakers."""
        return None if self.files == 0 else self.abs_error_sum / self.files

    @property
    def mean_signed_error(self) -> float | None:
        """Mean signed error per file (positive: too many system speakers)."""
        return None if self.files == 0 else self.signed_error_sum / self.files


@dataclass(frozen=True)
class TurnCounts(FieldwiseSum, Result, kind="transcripts.turn_counts"):
    """What input cleaning did to the turns: self-overlap merges and empty turns dropped.

    ``merges`` counts turns absorbed into an overlapping turn of the same speaker
    (three mutually overlapping turns give one turn and 2 merges).
    """

    turns: int
    merges: int
    empty: int

    def __post_init__(self) -> None:
        if min(self.turns, self.merges, self.empty) < 0 or self.merges + self.empty > self.turns:
            raise ValueError(f"inconsistent turn counts {self!r}")

@dataclass(frozen=True)
class DiarizationScore(FieldwiseSum, Result, kind="transcripts.diarization_score"):
    """DER variants, JER, speaker count and input counts for one file or a sum of files.

    The three DER variants share one speaker mapping and one collar and partition the
    same region: ``overlap_included == overlap_excluded + overlap_only`` always holds.
    ``jer`` is dscore's JER: no collar, overlap included (on 10 ms frames under
    ``compat="dscore"``, in continuous time otherwise). ``jer_collared`` and
    ``jer_collared_overlap_excluded`` are the same Jaccard error over the DER's scoring
    region (collars removed; and overlap removed), a speecheval variant that no other
    tool computes. ``compat`` says whose definition produced the numbers;
    ``differences`` counts the inputs on which the definitions part.
    """

    track: Track
    compat: Compat
    collar_us: int
    mapping_region: MappingRegion
    file_ids: tuple[str, ...]
    overlap_included: DerComponents
    overlap_excluded: DerComponents
    overlap_only: DerComponents
    jer: JerComponents
    jer_collared: JerComponents
    jer_collared_overlap_excluded: JerComponents
    speaker_count: SpeakerCount
    ref_turns: TurnCounts
    hyp_turns: TurnCounts
    mapping: tuple[tuple[str, str, str], ...]  # (file_id, reference speaker, system speaker)
    differences: Differences = Differences()

    _kept_fields: ClassVar[frozenset[str]] = frozenset({"track", "compat", "collar_us",
                                                        "mapping_region"})

    def __post_init__(self) -> None:
        if self.collar_us < 0:
            raise ValueError("collar must be non-negative")
        if len(set(self.file_ids)) != len(self.file_ids):
            raise ValueError(f"a file is counted twice in {self.file_ids}")
        if self.overlap_excluded + self.overlap_only != self.overlap_included:
            raise ValueError("overlap-excluded and overlap-only DER must add up to the total")
        if self.speaker_count.files != len(self.file_ids):
            raise ValueError("speaker count must cover each file once")

    def __add__(self, other: object) -> DiarizationScore:
        if not isinstance(other, DiarizationScore):
            return NotImplemented
        settings = (self.track, self.compat, self.collar_us, self.mapping_region)
        theirs = (other.track, other.compat, other.collar_us, other.mapping_region)
        if settings != theirs:
            raise ValueError(f"cannot add scores of different tracks or settings: {settings} "
                             f"and {theirs}")
        return self._add_fields(other)

    @property
    def collar(self) -> float:
        """Collar in seconds, applied as +-collar around every reference boundary."""
        return from_us(self.collar_us)


@dataclass(frozen=True)
class DiarizationUnsupported(FieldwiseSum, Result, kind="transcripts.diarization_unsupported"):
    """The system gives no speaker attribution: no DER, JER or speaker count exists.

    This is a result, not an error, and never an error rate of 0.
    """

    file_ids: tuple[str, ...]
    reason: str

    status: ClassVar[str] = "unsupported"
    _kept_fields: ClassVar[frozenset[str]] = frozenset({"reason"})

    @property
    def der(self) -> None:
        """Always ``None``: an unsupported system has no DER."""
        return None
