"""The corpus of the generated v1.5 dataset: at least 200 context turns, each with its own
interruption that refers to it; the full set built from it has no repeated (context,
overlap) pair, every interruption is its context's, and the corpus revision is recorded
(checked on the full set's plan), and the mini set is its start byte for byte."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from speecheval.core.audio import encode_wav
from speecheval.fdb.common.synthetic import official_json
from speecheval.fdb.v15.builder.corpus import CONTEXT_TURNS
from speecheval.fdb.v15.builder.dataset import (
    MINI_PER_SCENARIO,
    RATE,
    build_record,
    render,
    sample_specs,
)
from speecheval.fdb.v15.builder.texts import BACKGROUND, SIDE_REMARKS, corpus_revision
from speecheval.fdb.v15.dataset.layout import (
    CLEAN_INPUT_WAV,
    DECLARED_SIZES,
    INPUT_WAV,
    METADATA_JSON,
)

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


def test_full_set_has_no_repeated_pair() -> None:
    # on the plan: build_dataset("full") writes one folder per spec of sample_specs("full"),
    # its metadata.json the spec's two texts (RenderedSample.metadata), so the 499 samples
    # are checked without speaking them (the audio of the first ones is checked below)
    record = build_record("full", [])
    assert record["corpus"]["revision"] == corpus_revision()
    turns = {t["context_id"]: t for t in record["corpus"]["context_turns"]}
    assert len(turns) == len(CONTEXT_TURNS)
    full = sample_specs("full")
    pairs: Counter[tuple[str, str]] = Counter()
    for scenario, declared in DECLARED_SIZES.items():
        specs = [spec for spec in full if spec.scenario == scenario]
        assert [spec.local_id for spec in specs] == [str(n) for n in range(1, declared + 1)]
        for spec in specs:
            pairs[spec.context_text, spec.overlap_text] += 1
            turn = turns[spec.context_id]
            assert spec.context_text == turn["context"], spec
            if scenario == "user_interruption":
                assert spec.overlap_text == turn["interruption"], spec
    assert sum(pairs.values()) == sum(DECLARED_SIZES.values())  # 200 + 99 + 100 + 100
    assert max(pairs.values()) == 1, pairs.most_common(3)
    interruptions = {p for p in pairs if p[1] in {t.interruption for t in CONTEXT_TURNS}}
    assert len(interruptions) == DECLARED_SIZES["user_interruption"]  # 200 distinct


def test_mini_is_the_start_of_full_byte_for_byte(mini: Path) -> None:
    # the mini set (conftest's build_dataset(..., "mini")) is the first MINI_PER_SCENARIO
    # specs of the full one, and its files are what the full build renders for each of
    # them (render reads nothing but the spec)
    start = [spec for spec in sample_specs("full") if int(spec.local_id) <= MINI_PER_SCENARIO]
    assert sample_specs("mini") == start
    assert len(start) == MINI_PER_SCENARIO * len(DECLARED_SIZES)
    for spec in start:
        sample = render(spec)
        folder = mini / spec.scenario / spec.local_id
        assert (folder / INPUT_WAV).read_bytes() == encode_wav(sample.input_pcm, RATE), spec
        assert (folder / CLEAN_INPUT_WAV).read_bytes() == encode_wav(sample.clean_pcm, RATE)
        assert (folder / METADATA_JSON).read_text() == official_json(sample.metadata())
