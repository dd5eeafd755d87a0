"""The transcript reader's fast path gives the words of the simple, check-by-check path,
and any chunk it does not take goes to that path, which refuses it as before."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from speecheval.core.errors import InputError
from speecheval.fdb.common.annotations import _checked_words, _plain_words, words_from

T_US = 10_000_000  # T = 10 s
PATH = Path("tree/s1/output.json")


def simple(chunks: list[Any]) -> tuple[Any, ...] | str:
    """The simple path: every check in turn, then the words in time order (or the error)."""
    try:
        words = _checked_words(chunks, PATH, "s1", T_US)
    except InputError as error:
        return str(error)
    return tuple(sorted(words, key=lambda w: (w.start_us, w.end_us)))


def read(chunks: list[Any]) -> tuple[Any, ...] | str:
    try:
        return words_from({"text": "", "chunks": chunks}, PATH, "s1", T_US)
    except InputError as error:
        return str(error)


ODD = [None, 3, 0, True, -0.5, 10.0000004, 10.000001, 11.0, float("inf"), float("nan"), "1"]


def chunk(rng: random.Random) -> Any:
    start = round(rng.uniform(0, 10), rng.choice([2, 3, 6]))
    end = start + round(rng.uniform(-0.1, 1), 2)
    stamp: Any = [start, end]
    text: Any = rng.choice(["hello", " there ", "", "  ", "yes,"])
    if rng.random() < 0.1:
        stamp[rng.randrange(2)] = rng.choice(ODD)
    if rng.random() < 0.02:
        stamp = rng.choice([(start, end), [start], "0-1", None])
    if rng.random() < 0.02:
        text = rng.choice([None, 5])
    if rng.random() < 0.01:
        return rng.choice([[start, end], "word", None])
    return {"text": text, "timestamp": stamp}


def test_fast_path_words_and_errors_equal_the_simple_paths() -> None:
    rng = random.Random(29)
    taken = refused = 0
    for _ in range(400):
        chunks = [chunk(rng) for _ in range(rng.randrange(0, 12))]
        assert read(chunks) == simple(chunks), chunks
        if _plain_words(chunks, T_US) is not None:
            taken += 1
        refused += isinstance(simple(chunks), str)
    assert taken > 100 and refused > 50     # both paths are exercised


def test_fast_path_rounds_as_to_us_does() -> None:
    # 6.32000000000005 s and 6.32 s are the same microsecond; 1.5 us rounds to 2 (even)
    chunks = [{"text": "a", "timestamp": [6.32000000000005, 6.4]},
              {"text": "b", "timestamp": [0.0000015, 0.0000025]}]
    words = _plain_words(chunks, T_US)
    assert words is not None
    assert [(w.start_us, w.end_us) for w in words] == [(6_320_000, 6_400_000), (2, 2)]


@pytest.mark.parametrize("stamp", [[1, 2.0], [1.0, None], [True, 2.0]])
def test_values_the_fast_path_leaves_to_the_simple_one(stamp: list[Any]) -> None:
    # ints, a null end and a bool are not the usual kind: the simple path decides
    chunks = [{"text": "a", "timestamp": stamp}]
    assert _plain_words(chunks, T_US) is None
    assert read(chunks) == simple(chunks)
