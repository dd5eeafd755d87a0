"""The corpus of the generated v1.5 dataset: at least 200 context turns, each with its own
interruption that refers to it; the full set built from it has no repeated (context,
overlap) pair, every interruption is its context's, and the corpus revision is recorded."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from speecheval.fdb.v15.builder.corpus import CONTEXT_TURNS
from speecheval.fdb.v15.builder.dataset import BUILD_FILE, MINI_PER_SCENARIO, build_dataset
from speecheval.fdb.v15.builder.texts import BACKGROUND, SIDE_REMARKS, corpus_revision
from speecheval.fdb.v15.dataset.layout import DECLARED_SIZES

# words too common to show that an interruption is about its context
COMMON = {"what", "when", "where", "which", "with", "that", "this", "there", "then", "them",
          "they", "should", "would", "could", "does", "have", "your", "about", "from", "into",
          "before", "after", "first", "best", "good", "make", "much", "many", "more", "long",
          "tell", "know", "need", "than", "their", "will", "well", "over", "only", "the",
          "and", "how", "can", "for", "you", "did", "why", "are", "was", "not", "too", "day",
          "way", "new", "own", "out", "all", "any", "get", "use", "one", "two", "its", "who"}


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 3} - COMMON


def _stem(word: str) -> str:
    return word[:5]  # "volcanoes" and "volcano", "rises" and "rise" meet here


def test_every_interruption_names_something_of_its_own_context() -> None:
    assert len(CONTEXT_TURNS) >= 200
    assert len({t.context for t in CONTEXT_TURNS}) == len(CONTEXT_TURNS)
    assert len({t.interruption for t in CONTEXT_TURNS}) == len(CONTEXT_TURNS)
    assert len(set(SIDE_REMARKS)) == len(SIDE_REMARKS) >= DECLARED_SIZES["talking_to_other"]
    assert len(set(BACKGROUND)) == len(BACKGROUND) >= DECLARED_SIZES["background_speech"]
    for turn in CONTEXT_TURNS:
        shared = ({_stem(w) for w in _words(turn.context)}
                  & {_stem(w) for w in _words(turn.interruption)})
        assert shared, turn


@pytest.mark.skipif(shutil.which("espeak-ng") is None,
                    reason="espeak-ng is not installed (apt-get install espeak-ng)")
def test_full_set_has_no_repeated_pair_and_mini_is_its_start(tmp_path: Path) -> None:
    full, mini = tmp_path / "full", tmp_path / "mini"
    build_dataset(full, "full")
    build_dataset(mini, "mini")
    record = json.loads((full / BUILD_FILE).read_text())
    assert record["corpus"]["revision"] == corpus_revision()
    turns = {t["context_id"]: t for t in record["corpus"]["context_turns"]}
    assert len(turns) == len(CONTEXT_TURNS)
    pairs: Counter[tuple[str, str]] = Counter()
    for scenario, declared in DECLARED_SIZES.items():
        folders = sorted((full / scenario).iterdir(), key=lambda p: int(p.name))
        assert [p.name for p in folders] == [str(n) for n in range(1, declared + 1)]
        for folder in folders:
            metadata = json.loads((folder / "metadata.json").read_text())
            entry = record["samples"][f"{scenario}/{folder.name}"]
            pairs[metadata["context_text"], metadata["current_turn_text"]] += 1
            turn = turns[entry["context_id"]]
            assert metadata["context_text"] == turn["context"], folder
            if scenario == "user_interruption":
                assert metadata["current_turn_text"] == turn["interruption"], folder
    assert sum(pairs.values()) == sum(DECLARED_SIZES.values())  # 200 + 99 + 100 + 100
    assert max(pairs.values()) == 1, pairs.most_common(3)
    interruptions = {p for p in pairs if p[1] in {t.interruption for t in CONTEXT_TURNS}}
    assert len(interruptions) == DECLARED_SIZES["user_interruption"]  # 200 distinct
    # the mini set is the first MINI_PER_SCENARIO samples of the full one, byte for byte
    for scenario in DECLARED_SIZES:
        for number in range(1, MINI_PER_SCENARIO + 1):
            for name in ("input.wav", "clean_input.wav", "metadata.json"):
                path = Path(scenario, str(number), name)
                assert (mini / path).read_bytes() == (full / path).read_bytes(), path
