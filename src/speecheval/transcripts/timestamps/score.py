"""All timestamp measures of one sample, from whatever times its inputs carry.

- Hypothesis word times (CTM): the main protocol. Reference turns timed by anchors
  (:mod:`.turns`); with reference word times as well, matched-token errors
  (:mod:`.token_times`).
- Hypothesis segment times only: the unique-segment-pair diagnostic (:mod:`.segment_pairs`),
  reported in its own table.
- No hypothesis times: ``unsupported``.

Speaker-turn boundary P/R/F1 needs hypothesis speaker turns; speech coverage uses the
hypothesis's timed words or segments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..formats.segment import Segment, is_timed
from ..text.prf import MatchCounts
from ..text.tokenize import Unit
from .boundaries import boundary_counts
from .coverage import SpeechCoverage, speech_coverage
from .segment_pairs import SegmentPairTiming, segment_pair_timing
from .stream import timed_segments
from .token_times import TokenTiming, token_timing
from .turns import TurnTiming, turn_timing

Granularity = Literal["token", "segment", "unsupported"]


@dataclass(frozen=True, eq=False)
class TimestampResult:
    """One sample's timestamp measures; a part is ``None`` when its input is missing and
    ``notes`` says why."""

    granularity: Granularity
    turns: TurnTiming | None
    tokens: TokenTiming | None
    segment_pairs: SegmentPairTiming | None
    boundaries: dict[str, MatchCounts] | None
    speech: SpeechCoverage | None
    notes: tuple[str, ...]
    reference_granularity: Literal["word", "segment"]

    def report_dict(self) -> dict[str, Any]:
        """JSON-ready dict; boundary P/R/F1 keyed by tolerance in seconds."""
        return {
            "granularity": self.granularity,
            "reference_granularity": self.reference_granularity,
            "turns": None if self.turns is None else self.turns.report_dict(),
            "tokens": None if self.tokens is None else self.tokens.report_dict(),
            "segment_pairs_diagnostic": (None if self.segment_pairs is None
                                         else self.segment_pairs.report_dict()),
            "turn_boundaries": (None if self.boundaries is None
                                else {k: v.report_dict() for k, v in self.boundaries.items()}),
            "speech": None if self.speech is None else self.speech.report_dict(),
            "notes": list(self.notes),
        }



def score_timestamps(reference_turns: Sequence[Segment], unit: Unit, *,
                     hypothesis_words: Sequence[Segment] | None = None,
                     hypothesis_segments: Sequence[Segment] | None = None,
                     reference_words: Sequence[Segment] | None = None,
                     hypothesis_turns: Sequence[Segment] | None = None) -> TimestampResult:
    """Score what the inputs allow; see the module docstring for which part needs what.

    ``reference_turns`` must all have times; ``hypothesis_turns`` are speaker turns with
    times (for boundaries) and are ignored when none has a speaker.
    """
    if not is_timed(reference_turns):
        raise ValueError("reference turns need start and end times for timestamp scoring")
    ref = timed_segments(reference_turns, unit)
    notes: list[str] = []
    turns = tokens = pairs = None
    speech = None
    granularity: Granularity
    if hypothesis_words:
        granularity = "token"
        words = timed_segments(hypothesis_words, unit)
        turns = turn_timing(ref, words)
        speech = speech_coverage(ref, words)
        if reference_words:
            tokens = token_timing(timed_segments(reference_words, unit), words)
        else:
            notes.append("no reference word times: matched-token errors not scored")
    elif is_timed(hypothesis_segments):
        assert hypothesis_segments is not None
        granularity = "segment"
        hyp = timed_segments(hypothesis_segments, unit)
        pairs = segment_pair_timing(ref, hyp)
        speech = speech_coverage(ref, hyp)
        notes.append("segment timestamps only: diagnostic table, not ranked")
    else:
        granularity = "unsupported"
        notes.append("the system gives no timestamps")
    boundaries = None
    if hypothesis_turns and any(t.speaker is not None for t in hypothesis_turns):
        boundaries = boundary_counts(ref, timed_segments(hypothesis_turns, unit))
    else:
        notes.append("no hypothesis speaker turns: turn boundary F1 unsupported")
    return TimestampResult(granularity, turns, tokens, pairs, boundaries, speech, tuple(notes),
                           "word" if reference_words else "segment")
