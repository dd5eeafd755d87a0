"""The repetition guard: loops are cut to their first occurrence, real repeats stay."""

from __future__ import annotations

from speecheval.asr.base import TimedWord
from speecheval.asr.repetition import RepetitionGuard


def words(*texts: str) -> list[TimedWord]:
    return [TimedWord(t, i * 0.5, i * 0.5 + 0.4) for i, t in enumerate(texts)]


def test_a_looping_word_keeps_its_first_occurrence() -> None:
    loop = words("okay", *["you"] * 9, "bye")
    kept = RepetitionGuard().apply(loop)
    # "you" x9 > 4 repeats: the first "you" (at 0.5 s) stays, the eight repeats go.
    assert [(w.text, w.start_s) for w in kept] == [("okay", 0.0), ("you", 0.5), ("bye", 5.0)]


def test_a_looping_phrase_ignores_case_and_punctuation() -> None:
    loop = words("Thank", "you.", *["thank", "you"] * 5)
    assert [w.text for w in RepetitionGuard().apply(loop)] == ["Thank", "you."]


def test_four_repeats_are_speech() -> None:
    speech = words("yeah", "yeah", "yeah", "yeah", "sure")
    assert RepetitionGuard().apply(speech) == speech


def test_the_limit_is_a_setting() -> None:
    speech = words("no", "no", "no")
    assert [w.text for w in RepetitionGuard(max_repeats=2).apply(speech)] == ["no"]
    assert RepetitionGuard(max_repeats=2).identity()["max_repeats"] == 2
