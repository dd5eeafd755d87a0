"""Cases added for mutants of ``transcripts/text/cp.py`` that the other tests let survive
(docs/testing.md, "Surviving mutants"): the order of the reported assignment when a
speaker is named by the empty string (SegLST accepts ``"speaker": ""``), and the result
of no pairs at all."""

from __future__ import annotations

from speecheval.transcripts.text.counts import ErrorCounts
from speecheval.transcripts.text.cp import CpResult, cp_error_counts


def names(result: CpResult) -> list[tuple[str | None, str | None]]:
    return [(p.reference_speaker, p.hypothesis_speaker) for p in result.assignment]


def test_a_reference_speaker_named_empty_sorts_first() -> None:
    # "" says "x", A says "y"; G says "x", H says "y": pairs ""-G and A-H, 0 errors. The
    # reference speakers sort by name, and "" < "A".
    result = cp_error_counts({"A": ["y"], "": ["x"]}, {"H": ["y"], "G": ["x"]})
    assert names(result) == [("", "G"), ("A", "H")]
    assert result.counts == ErrorCounts(0, 0, 0, 2, 2)


def test_a_false_alarm_named_empty_sorts_first_among_false_alarms() -> None:
    # A says "x" and H says it (0 errors); "" and B are left over, 1 insertion each, and
    # listed after the paired reference speaker by name: "" before B.
    result = cp_error_counts({"A": ["x"]}, {"B": ["r"], "H": ["x"], "": ["q"]})
    assert names(result) == [("A", "H"), (None, ""), (None, "B")]
    # S 0, D 0, I 2, N 1, hypothesis tokens 3
    assert result.counts == ErrorCounts(0, 0, 2, 1, 3)


def test_no_pairs_make_the_neutral_result() -> None:
    # A session with no speaker on either side: counts are the zero ErrorCounts (not 0)
    empty = CpResult.from_pairs([], 0, 0)
    assert empty == CpResult.zero() and isinstance(empty.counts, ErrorCounts)
    assert empty.error_rate is None
