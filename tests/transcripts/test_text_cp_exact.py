"""cpWER details that the totals do not show: the reported assignment, its order and
session ids, one-sided sessions, normalisation switched off, and the UEM filter's edges.
"""

from __future__ import annotations

import pytest

from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.text.counts import ErrorCounts
from speecheval.transcripts.text.cp import (
    CpResult,
    SpeakerPair,
    cp_error_counts,
    cp_error_rate,
    filter_by_uem,
    speaker_tokens,
)


def names(result: CpResult) -> list[tuple[str, str | None, str | None]]:
    return [(p.session_id, p.reference_speaker, p.hypothesis_speaker) for p in result.assignment]


def test_assignment_is_listed_by_reference_speaker_then_false_alarms_by_name() -> None:
    # A says "a b", B says "c d"; hypothesis Y = "a b" (A's words), X = "c d" (B's), and
    # two extra speakers W = "q", Z = "r". Best pairing A-Y, B-X (0 errors) and W, Z left
    # over (1 insertion each). The assignment is sorted by reference speaker (A before B,
    # though A's partner Y sorts after B's X), then the false alarms by name (W before Z).
    result = cp_error_counts({"B": ["c", "d"], "A": ["a", "b"]},
                             {"Z": ["r"], "Y": ["a", "b"], "X": ["c", "d"], "W": ["q"]})
    assert names(result) == [("", "A", "Y"), ("", "B", "X"), ("", None, "W"), ("", None, "Z")]
    assert [p.counts.errors for p in result.assignment] == [0, 0, 1, 1]
    assert result.counts == ErrorCounts(0, 0, 2, 4, 6)
    assert (result.false_alarm_speakers, result.hypothesis_speakers) == (2, 4)


def test_missed_reference_speakers_are_listed_in_name_order() -> None:
    # reference C, A, B; hypothesis X = B's words: B-X 0 errors, A and C missed (their
    # 1 + 2 words deleted); listed A, B, C
    result = cp_error_counts({"C": ["e", "f"], "A": ["a"], "B": ["c", "d"]}, {"X": ["c", "d"]})
    assert names(result) == [("", "A", None), ("", "B", "X"), ("", "C", None)]
    assert result.counts.deletions == 3 and result.missed_speakers == 2


def test_session_ids_reach_the_assignment() -> None:
    ref = [Segment("s2", "A", 0, 1, "x"), Segment("s1", "A", 0, 1, "a b")]
    hyp = [Segment("s1", "H", 0, 1, "a b"), Segment("s3", "H", 0, 1, "y")]
    result = cp_error_rate(ref, hyp, "word")
    # sessions in name order: s1 (A-H exact), s2 (reference only: A missed, 1 deletion),
    # s3 (hypothesis only: H a false alarm, 1 insertion)
    assert names(result) == [("s1", "A", "H"), ("s2", "A", None), ("s3", None, "H")]
    assert result.counts == ErrorCounts(0, 1, 1, 3, 3)
    assert cp_error_counts({"A": ["x"]}, {"H": ["x"]}, "meeting").assignment[0].session_id == (
        "meeting")


def test_no_session_at_all_is_the_zero_result() -> None:
    result = cp_error_rate([], [], "word")
    assert isinstance(result, CpResult) and result == CpResult.zero()
    assert result.error_rate is None


def test_normalisation_can_be_switched_off() -> None:
    # normalised: "Hello, World" -> "hello world" matches exactly; raw whitespace words
    # "Hello," and "World" against "hello" and "world" are 2 substitutions
    ref = [Segment("s", "A", 0, 1, "Hello, World")]
    hyp = [Segment("s", "B", 0, 1, "hello world")]
    assert cp_error_rate(ref, hyp, "word").counts.errors == 0
    assert cp_error_rate(ref, hyp, "word", normalise=False).counts.substitutions == 2
    # the switch applies to the hypothesis too: raw "Hello," against "hello" is wrong
    swapped = cp_error_rate(hyp, ref, "word", normalise=False).counts
    assert (swapped.substitutions, swapped.reference_tokens) == (2, 2)
    # characters: raw keeps case and the comma: "Hello,World" (11) vs "helloworld" (10)
    raw = cp_error_rate(ref, hyp, "char", normalise=False).counts
    assert (raw.reference_tokens, raw.hypothesis_tokens, raw.errors) == (11, 10, 3)
    assert speaker_tokens(ref, "word", normalise=False) == {"s": {"A": ["Hello,", "World"]}}


def test_segment_without_a_speaker_is_refused() -> None:
    with pytest.raises(ValueError, match="segment without a speaker in session 's'"):
        speaker_tokens([Segment("s", None, 0, 1, "a")], "word")


def test_untimed_segments_sort_at_zero() -> None:
    # A's untimed segment sorts as if at 0 s, before the one at 0.5 s: "x y"
    segments = [Segment("s", "A", 0.5, 2.0, "y"), Segment("s", "A", None, None, "x")]
    assert speaker_tokens(segments, "word") == {"s": {"A": ["x", "y"]}}


def test_segments_starting_together_keep_file_order() -> None:
    # all three start at 1.0: whatever their ends (3.0, 2.0, none), they stay in the order
    # given, as meeteval's stable sort by start keeps them; the one at 0.5 still goes first
    segments = [Segment("s", "A", 1.0, 3.0, "late"), Segment("s", "A", 1.0, 2.0, "early"),
                Segment("s", "A", 1.0, None, "open"), Segment("s", "A", 0.5, 0.6, "first")]
    assert speaker_tokens(segments, "word") == {
        "s": {"A": ["first", "late", "early", "open"]}}
    assert speaker_tokens(segments[2::-1], "word") == {"s": {"A": ["open", "early", "late"]}}


def test_tokens_are_normalised_by_default() -> None:
    assert speaker_tokens([Segment("s", "A", 0, 1, "Hello, World!")], "word") == {
        "s": {"A": ["hello", "world"]}}


def test_uem_filter_keeps_segments_touching_a_region_edge() -> None:
    # region [10, 20]: a segment ending exactly at 10 or starting exactly at 20 touches it
    # and is kept whole; one ending at 9.99 or starting at 20.01 is dropped
    segments = [Segment("f", "A", 5, 10, "end-at-start"), Segment("f", "A", 20, 25, "at-end"),
                Segment("f", "A", 5, 9.99, "before"), Segment("f", "A", 20.01, 25, "after")]
    kept = filter_by_uem(segments, {"f": [(10.0, 20.0)]})
    assert [s.words for s in kept] == ["end-at-start", "at-end"]


def test_uem_filter_keeps_sessions_without_regions_whole() -> None:
    # session g has no region: all its segments stay, and so do the ones after it
    segments = [Segment("g", "A", 0, 1, "g1"), Segment("f", "A", 0, 1, "f-out"),
                Segment("g", "A", 5, 6, "g2"), Segment("f", "A", 12, 13, "f-in")]
    kept = filter_by_uem(segments, {"f": [(10.0, 20.0)]})
    assert [s.words for s in kept] == ["g1", "g2", "f-in"]


def test_uem_filter_needs_times() -> None:
    with pytest.raises(ValueError, match=r"^segment without times in session 'f' cannot be "
                                         r"filtered by a UEM$"):
        filter_by_uem([Segment("f", "A", None, None, "x")], {"f": [(0.0, 1.0)]})
    for start, end in ((None, 1.0), (0.5, None)):
        with pytest.raises(ValueError, match="cannot be filtered by a UEM"):
            filter_by_uem([Segment("f", "A", start, end, "x")], {"f": [(0.0, 1.0)]})


def test_false_alarms_are_sorted_even_when_the_assignment_lists_them_otherwise() -> None:
    # r0 = "c" pairs with h0 = "c b" (1 insertion); h1 and h2 are left over, and the
    # assignment solver happens to produce h2 before h1: the report sorts them by name
    result = cp_error_counts({"r0": ["c"]}, {"h0": ["c", "b"], "h1": ["d", "a", "a"], "h2": []})
    assert names(result) == [("", "r0", "h0"), ("", None, "h1"), ("", None, "h2")]


def test_cp_result_dict_and_invariants() -> None:
    result = cp_error_counts({"A": ["a", "b"]}, {"X": ["a", "c"], "Y": ["d"]}, "s")
    # A-X: 1 substitution over 2; Y a false alarm: 1 insertion; 2 errors over 2 tokens
    assert result.report_dict("cpwer") == {
        "cpwer": 1.0, "errors": 2, "length": 2, "hypothesis_length": 3, "insertions": 1,
        "deletions": 0, "substitutions": 1, "reference_speakers": 1, "hypothesis_speakers": 2,
        "missed_speakers": 0, "false_alarm_speakers": 1,
        "assignment": [
            {"session_id": "s", "reference_speaker": "A", "hypothesis_speaker": "X",
             "errors": 1, "length": 2},
            {"session_id": "s", "reference_speaker": None, "hypothesis_speaker": "Y",
             "errors": 1, "length": 0}]}
    pair = result.assignment[0]
    with pytest.raises(ValueError, match="^cp counts differ from the sum over the speaker "
                                         "assignment$"):
        CpResult(ErrorCounts.zero(), 1, 1, 0, 0, (pair,))
    with pytest.raises(ValueError, match="^missed/false-alarm speaker counts differ from the "
                                         "assignment$"):
        CpResult(pair.counts, 1, 1, 1, 0, (pair,))
    with pytest.raises(ValueError, match="^paired reference and hypothesis speaker counts "
                                         "differ$"):
        CpResult(pair.counts, 2, 1, 0, 0, (pair,))
    with pytest.raises(ValueError, match="^a speaker pair needs at least one real speaker$"):
        SpeakerPair("s", None, None, ErrorCounts.zero())


def test_speaker_tokens_in_mixed_units() -> None:
    # normalised MER tokens: a Latin run is one token, each CJK character one token;
    # without normalisation every non-space character is a token (as meeteval's cpCER)
    segments = [Segment("s", "A", 0, 1, "用Python写")]
    assert speaker_tokens(segments, "mixed") == {"s": {"A": ["用", "python", "写"]}}
    assert speaker_tokens(segments, "mixed", normalise=False) == {
        "s": {"A": ["用", "P", "y", "t", "h", "o", "n", "写"]}}


def test_segments_are_concatenated_by_start_not_by_end() -> None:
    # "first" 0-10 s starts before "second" 1-2 s, though it ends later; the three that
    # start at 0 keep file order whatever their ends (10, 0.5, none), as meeteval's
    segments = [Segment("s", "A", 1.0, 2.0, "second"), Segment("s", "A", 0.0, 10.0, "first"),
                Segment("s", "A", 0.0, 0.5, "short"), Segment("s", "A", 0.0, None, "open")]
    assert speaker_tokens(segments, "word") == {"s": {"A": ["first", "short", "open",
                                                             "second"]}}
