"""Punctuation, number and term matches of speech and low-speech runs (pooled per scenario)."""

from __future__ import annotations

from ...text.prf import MatchCounts
from ...text.punctuation import punctuation_counts
from ...text.terms import number_counts, term_counts
from ..manifest import NON_SPEECH_KINDS
from ..measure import Measure, Outcome, RunInputs


class Punctuation(Measure[MatchCounts]):
    """Punctuation marks matched between the texts."""

    name = "punctuation"

    def score(self, inputs: RunInputs) -> Outcome[MatchCounts]:
        if inputs.sample.kind in NON_SPEECH_KINDS:
            return Outcome()
        return Outcome(punctuation_counts(inputs.reference.text, inputs.hypothesis.text))


class Numbers(Measure[MatchCounts]):
    """Numbers matched between the texts."""

    name = "numbers"

    def score(self, inputs: RunInputs) -> Outcome[MatchCounts]:
        if inputs.sample.kind in NON_SPEECH_KINDS:
            return Outcome()
        return Outcome(number_counts(inputs.reference.text, inputs.hypothesis.text))


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
