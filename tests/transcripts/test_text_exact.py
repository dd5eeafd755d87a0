"""Edges of the text metrics: the empty alignment, the vocabulary's limit, the counts'
type checks and the names a report shows."""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.text.align import Vocabulary, edit_path
from speecheval.transcripts.text.counts import ErrorCounts
from speecheval.transcripts.timestamps.stream import timed_segments
from speecheval.transcripts.timestamps.turns import turn_timing

CODE_POINTS = 0x10FFFF + 1   # 1,114,112: chr() covers 0 .. 0x10FFFF


def test_empty_alignment_is_an_empty_integer_path() -> None:
    path = edit_path("", "")
    assert path.ref_index.dtype == path.hyp_index.dtype == np.int64
    assert path.equal.dtype == np.bool_ and path.equal.size == 0
    assert path.counts() == ErrorCounts.zero()
    pairs = path.matched_pairs()
    assert pairs.shape == (0, 2) and pairs.dtype == np.int64


def test_turn_without_tokens_on_either_side_is_an_empty_turn() -> None:
    # one reference turn with no words and a hypothesis without words: nothing to align,
    # the turn is counted as empty and nothing is scored
    result = turn_timing(timed_segments([Segment("r", "A", 0.0, 1.0, "")], "word"),
                         timed_segments([Segment("r", None, 0.0, 1.0, "")], "word"))
    assert (result.reference_turns, result.empty_turns, result.scorable_turns) == (1, 1, 0)


def test_vocabulary_holds_exactly_one_token_per_code_point() -> None:
    # 1,114,112 distinct tokens use every code point once; one more cannot be encoded
    vocabulary = Vocabulary()
    encoded = vocabulary.encode(range(CODE_POINTS))
    assert len(encoded) == CODE_POINTS and ord(encoded[-1]) == 0x10FFFF
    with pytest.raises(ValueError, match="^more distinct tokens than Unicode code points$"):
        vocabulary.encode([CODE_POINTS])


@pytest.mark.parametrize("value", [1.0, True, -1, "1"])
def test_counts_must_be_non_negative_ints(value: object) -> None:
    with pytest.raises(ValueError, match=r"^substitutions must be a non-negative int, got "):
        ErrorCounts(value, 0, 0, 2, 2)  # type: ignore[arg-type]


def test_counts_dict_names_every_quantity() -> None:
    # 1 substitution, 2 deletions, 1 insertion over 10 reference tokens (9 hypothesis
    # tokens: 10 - 2 + 1): errors 4, rate 0.4
    assert ErrorCounts(1, 2, 1, 10, 9).report_dict() == {
        "substitutions": 1, "deletions": 2, "insertions": 1, "errors": 4, "length": 10,
        "hypothesis_length": 9, "error_rate": 0.4}
    assert ErrorCounts.zero().report_dict()["error_rate"] is None
