"""Punctuation, number and term matches of speech and low-speech runs (pooled per scenario)."""

from __future__ import annotations

from collections.abc import Callable

from ...text.prf import MatchCounts
from ...text.punctuation import punctuation_counts
from ...text.terms import number_counts, term_counts
from ..manifest import NON_SPEECH_KINDS
from ..measure import Measure, Outcome, RunInputs


class _TextMatch(Measure[MatchCounts]):
    """Items of the reference text matched in the output, for speech samples."""

    count: Callable[[str, str], MatchCounts]

    def score(self, inputs: RunInputs) -> Outcome[MatchCounts]:
        if inputs.sample.kind in NON_SPEECH_KINDS:
            return Outcome()
        return Outcome(type(self).count(inputs.reference.text, inputs.hypothesis.text))


class Punctuation(_TextMatch):
    """Punctuation marks matched between the texts."""

    name = "punctuation"
    count = staticmethod(punctuation_counts)


class Numbers(_TextMatch):
    """Numbers matched between the texts."""

    name = "numbers"
    count = staticmethod(number_counts)


class Terms(Measure[MatchCounts]):
    """The reference metadata's terms found in the output."""

    name = "terms"

    def score(self, inputs: RunInputs) -> Outcome[MatchCounts]:
        if inputs.sample.kind in NON_SPEECH_KINDS:
            return Outcome()
        terms = inputs.sample.reference.terms
        if not terms:
            return Outcome(status={"terms": "no term list in the reference metadata"})
        return Outcome(term_counts(inputs.reference.text, inputs.hypothesis.text, terms))
