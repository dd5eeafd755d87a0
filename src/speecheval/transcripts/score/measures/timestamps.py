"""Timestamps of turns, tokens and speech (see :mod:`...timestamps.score`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ....core.errors import InputError
from ...formats.segment import Segment, first_untimed, is_timed
from ...text.prf import MatchCounts
from ...timestamps.coverage import SpeechCoverage
from ...timestamps.score import TimestampResult, score_timestamps
from ...timestamps.token_times import TokenTiming
from ...timestamps.turns import TurnTiming
from ..declarations import OUT_OF_RANGE
from ..inputs import segments_from_rttm
from ..manifest import NON_SPEECH_KINDS
from ..measure import Measure, Outcome, RunInputs, RunScore, ScenarioView, pool
from ..table_entries import TimestampsEntry


class Timestamps(Measure[TimestampResult]):
    """Needs timed reference turns; failed runs are left out and counted. The segment-pair
    diagnostic goes to its own file, not to ``samples.jsonl``."""

    name = "timestamps"

    def score(self, inputs: RunInputs) -> Outcome[TimestampResult]:
        sample, reference, hypothesis = inputs.sample, inputs.reference, inputs.hypothesis
        if sample.kind in NON_SPEECH_KINDS:
            return Outcome(status={"timestamps": f"{sample.kind} sample"})
        if not is_timed(reference.segments):
            return Outcome(status={"timestamps": "reference transcript has no segment times"})
        out_of_range = inputs.support.declared.out_of_range(sample.duration_s)
        if out_of_range is not None:
            return Outcome(status={"timestamps": out_of_range})
        if inputs.failed:
            return Outcome(status={"timestamps": (
                "failed run: excluded and counted" if inputs.support.token_timestamps else
                "unsupported: the system gives no token timestamps (failed run, counted)")})
        run = inputs.run
        _check_word_times(reference.words, sample.reference.words, sample.id)
        _check_word_times(hypothesis.words, run.words or run.transcript, sample.id)
        return Outcome(score_timestamps(
            reference.segments, inputs.unit, hypothesis_words=hypothesis.words,
            hypothesis_segments=(hypothesis.segments if is_timed(hypothesis.segments)
                                 else None),
            reference_words=reference.words,
            hypothesis_turns=(None if hypothesis.turns is None
                              else segments_from_rttm(hypothesis.turns))))

    def row(self, result: TimestampResult, run: RunScore) -> Any:
        row = result.report_dict()
        row.pop("segment_pairs_diagnostic")
        return row

    def table(self, runs: Sequence[RunScore], view: ScenarioView) -> TimestampsEntry:
        results = [result for run in runs if (result := run.get(Timestamps)) is not None]
        turns: TurnTiming | None = pool(t.turns for t in results)
        tokens: TokenTiming | None = pool(t.tokens for t in results)
        speech: SpeechCoverage | None = pool(t.speech for t in results
                                             if t.granularity == "token")
        boundaries: dict[str, MatchCounts] | None = None
        with_bounds = [t.boundaries for t in results if t.boundaries is not None
                       and t.granularity == "token"]
        if with_bounds:
            boundaries = {k: total for k in sorted(with_bounds[0])
                          if (total := pool(b[k] for b in with_bounds)) is not None}
        granularity = {g: sum(1 for t in results if t.granularity == g)
                       for g in ("token", "segment", "unsupported")}
        out_of_range = sum(run.status.get(self.name, "").startswith(OUT_OF_RANGE)
                           for run in runs)
        return TimestampsEntry(granularity, len(runs) - len(results), turns, tokens,
                               boundaries, speech, out_of_range)


def _check_word_times(words: Sequence[Segment] | None, path: Path | None,
                      sample_id: str) -> None:
    """Word times are what timestamp scoring measures: a word without a start or an end
    (a SegLST entry with a null time) is bad input, named by file and entry, rather than
    a failure deep in the scoring."""
    untimed = first_untimed(words or ())
    if untimed is not None:
        raise InputError(f"timestamps: a word without a start or an end time{untimed.entry}: "
                         f"{untimed.words!r}", path=path, sample_id=sample_id)
