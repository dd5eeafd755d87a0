"""Declarative sample specifications for generated FDB v1.0 reference trees.

A tree is described as data before any audio is made: each sample says its subset, its
input length T, its annotation times, where each speech clip is placed and what outcome the
placement is meant to produce. Keeping the description separate from rendering lets the
tests compare a scorer's outcomes with the intended ones and lets the mini and the
full-size trees share one renderer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ....core.timebase import US_PER_S, to_us
from ...common.tree import ANNOTATION_FILES, DECLARED_SIZES, SUBSET_TASKS, SampleListing

RATE = 16_000
"""Sample rate of every generated output.wav (the rate of the official outputs)."""

# The subsets, their tasks, declared sizes and annotation files are the tree format's
# (``tree.py``); they are re-exported here for the builder modules and their tests.
__all__ = ["ANNOTATION_FILES", "DECLARED_SIZES", "RATE", "SUBSET_TASKS", "BuiltSample",
           "Placement", "SampleSpec"]


@dataclass(frozen=True)
class Placement:
    """One speech clip mixed into output.wav, starting at ``start_s``.

    ``start_s`` must fall on a whole sample that is also a whole microsecond (a multiple
    of 125 us at 16 kHz), so the written word times are exact.
    ``null_end_words`` lists word indices (within the clip) whose transcript end is
    written as ``null``, as some ASR outputs do.
    """

    clip: str
    start_s: float
    null_end_words: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.start_s < 0:
            raise ValueError(f"placement of {self.clip} starts before 0: {self.start_s}")
        if (to_us(self.start_s) * RATE) % US_PER_S:
            raise ValueError(f"placement of {self.clip} at {self.start_s} s is not on a sample")

    @property
    def start_sample(self) -> int:
        return to_us(self.start_s) * RATE // US_PER_S


@dataclass(frozen=True)
class SampleSpec:
    """Everything needed to render one sample of a reference tree.

    Exactly the annotation field of the subset's task is set: ``pauses`` (pause
    handling), ``turn`` = (E, E2) (turn-taking) or ``interrupt`` = (S, R) (interruption).
    Annotation times are written as given, float noise included, because the scorer must
    round them itself. A sample with ``reasons`` is ineligible; ``has_output`` False
    models a capture that left no output.wav or transcript. ``intended`` holds the
    outcome classes and flags the placements are designed to produce.
    """

    subset: str
    local_id: str
    duration_s: float
    placements: tuple[Placement, ...] = ()
    pauses: tuple[tuple[float, float], ...] = ()
    turn: tuple[float, float] | None = None
    interrupt: tuple[float, float] | None = None
    context: tuple[str, str] = ("", "")
    reasons: tuple[str, ...] = ()
    has_output: bool = True
    intended: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.subset not in SUBSET_TASKS:
            raise ValueError(f"unknown subset {self.subset!r}")
        task = self.task
        present = {"pause_handling": bool(self.pauses),
                   "smooth_turn_taking": self.turn is not None,
                   "user_interruption": self.interrupt is not None}
        for name, is_set in present.items():
            if is_set != (name == task):
                raise ValueError(f"{self.sample_id}: annotation does not match task {task}")
        if self.duration_s <= 0:
            raise ValueError(f"{self.sample_id}: input duration must be positive")

    @property
    def task(self) -> str:
        return SUBSET_TASKS[self.subset]

    @property
    def sample_id(self) -> str:
        return f"{self.subset}/{self.local_id}"

    @property
    def eligible(self) -> bool:
        return not self.reasons

    @property
    def n_samples(self) -> int:
        """Length of output.wav: exactly round(T * rate) samples."""
        return round(self.duration_s * RATE)


@dataclass(frozen=True)
class BuiltSample(SampleListing):
    """A sample as written into a tree, with the outcome it was designed to produce."""

    intended: Mapping[str, object]

    @classmethod
    def from_spec(cls, spec: SampleSpec) -> BuiltSample:
        return cls(sample_id=spec.sample_id, subset=spec.subset, task=spec.task,
                   input_duration_s=spec.duration_s, eligible=spec.eligible,
                   reasons=spec.reasons, intended=dict(spec.intended))
