"""Punctuation F1, numbers/terms precision-recall-F1 and hallucination on silence."""

from __future__ import annotations

import pytest

from speecheval.transcripts.text.hallucination import HallucinationCounts, hallucination
from speecheval.transcripts.text.punctuation import punctuation_counts
from speecheval.transcripts.text.terms import number_counts, numbers, term_counts


def test_punctuation_f1_fullwidth_equals_ascii_after_nfkc() -> None:
    # Reference marks: ， 。 -> NFKC , and 。 stays (U+3002 has no compatibility form).
    # Hypothesis: , ? 。 -> alignment keeps , and 。, inserts ?: matched 2, P 2/3, R 2/2.
    counts = punctuation_counts("你好，世界。", "你好,世界?。")
    assert (counts.matched, counts.reference, counts.hypothesis) == (2, 2, 3)
    assert counts.f1 == pytest.approx(2 * 2 / (2 + 3))


def test_punctuation_order_matters() -> None:
    # ". ," vs ", .": the best alignment keeps one mark: matched 1 of 2 each side.
    assert punctuation_counts("a. b, c", "a, b. c").matched == 1


def test_punctuation_none_on_both_sides_is_undefined() -> None:
    counts = punctuation_counts("abc", "abd")
    assert counts.f1 is None and counts.precision is None and counts.recall is None


def test_numbers_extraction_and_prf() -> None:
    assert numbers("共 1,234 人，增长 ３.５%") == ["1234", "3.5"]
    # ref numbers 2024, 3, 3; hyp numbers 2024, 3, 4: multiset match 2024 and one 3.
    counts = number_counts("2024年3月3日", "2024年3月4日")
    assert (counts.matched, counts.reference, counts.hypothesis) == (2, 3, 3)
    assert counts.precision == pytest.approx(2 / 3) and counts.recall == pytest.approx(2 / 3)


def test_numbers_are_digits_0_to_9() -> None:
    """Digits of other scripts are not numbers (unfixed: a Unicode ``\\d`` read ``٣٥``
    as a number, which never matched ``35``, and ``3٥`` as one number ``3٥``)."""
    # ٣٥ and ३ are not 0-9: no number; "3٥" gives "3" (٥ ends the match); the
    # full-width ２０１ is folded to "201" by NFKC before matching
    assert numbers("room ٣٥, floor ३, 3٥ and ２０１") == ["3", "201"]
    # reference "٣٥" has no number; the hypothesis "35" is one: 0 matched of 0 and 1
    counts = number_counts("call ٣٥ now", "call 35 now")
    assert (counts.matched, counts.reference, counts.hypothesis) == (0, 0, 1)


def test_terms_from_sample_metadata_whole_tokens() -> None:
    # Term "GPU" appears once in the reference; the hypothesis says "GPUs" (a different
    # token), so it is not a match: recall 0/1, precision undefined (no hypothesis terms).
    counts = term_counts("the GPU is hot", "the GPUs is hot", ["GPU"])
    assert (counts.matched, counts.reference, counts.hypothesis) == (0, 1, 0)
    assert counts.precision is None and counts.recall == 0.0
    # CJK terms match inside unspaced text; repeated terms count per occurrence.
    counts = term_counts("深度学习和深度学习", "深度学习和深度雪习", ["深度学习"])
    assert (counts.matched, counts.reference, counts.hypothesis) == (1, 2, 1)


def test_terms_that_normalise_alike_count_once() -> None:
    # "GPU", "gpu" and "G.P.U" all normalise to the one token "gpu": one term. The
    # reference says it twice and the hypothesis once, so matched min(2, 1) = 1 of
    # reference 2 and hypothesis 1 (unfixed: counted three times, 3 of 6 and 3).
    counts = term_counts("the GPU and the gpu", "a gpu", ["GPU", "gpu", "G.P.U"])
    assert (counts.matched, counts.reference, counts.hypothesis) == (1, 2, 1)


def test_empty_term_rejected() -> None:
    with pytest.raises(ValueError, match="empty after normalisation"):
        term_counts("a", "a", ["。"])


def test_hallucination_rates() -> None:
    # Sample 1 (10 s silence): "Thank you." -> 8 characters (spaces and '.' not counted).
    # Sample 2 (20 s music): empty. Non-empty rate 1/2; 8 chars / 30 s.
    total = hallucination("Thank you.", 10.0) + hallucination("", 20.0)
    assert total == HallucinationCounts(2, 1, 8, 30.0)
    assert total.nonempty_rate == 0.5
    assert total.chars_per_second == pytest.approx(8 / 30)


def test_hallucination_invariants() -> None:
    with pytest.raises(ValueError, match="disagree"):
        HallucinationCounts(1, 0, 3, 1.0)
    with pytest.raises(ValueError, match="duration"):
        hallucination("x", float("nan"))
