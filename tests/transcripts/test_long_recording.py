"""The long recording's script never repeats a run of sentences back to back.

A correct transcript of ``A B A B`` is an exact adjacent repeat, which the gate fails as a
decoding loop: the hour of seed 2026 once said "We moved the database ... / I think the
second option ..." twice and a half in a row (sentences 424-428), so its own reference
failed ``transcripts gate`` at the 24-token window. These checks draw sentences without
making audio, so they are fast.
"""

from __future__ import annotations

import numpy as np
from long_recording import REPEAT_HORIZON, SENTENCES, next_sentence, repeats_a_run

from speecheval.transcripts.gate.repeats import repeat_regions, token_ids
from speecheval.transcripts.gate.rules import REPEAT_WINDOWS
from speecheval.transcripts.text.normalize import normalize
from speecheval.transcripts.text.tokenize import mixed_tokens


def test_the_horizon_covers_the_widest_window() -> None:
    # the shortest sentences ("Our podcast today is about building reliable software.")
    # are 8 normalized tokens: 12 of them are 96 tokens, the widest window; a run of 13
    # is at least 104 tokens, so its repeat starts more than 96 tokens later
    assert min(len(mixed_tokens(normalize(s))) for s in SENTENCES) == 8
    assert REPEAT_HORIZON == 12


def test_a_sentence_that_would_repeat_a_run_is_refused() -> None:
    assert repeats_a_run([5], 5)                      # A A
    assert repeats_a_run([4, 2, 7, 2], 7)             # ... B A | B A
    assert not repeats_a_run([2, 7, 2], 5)
    run = list(range(REPEAT_HORIZON))                 # 12 sentences, then the same 11
    assert repeats_a_run(run + run[:-1], run[-1])
    longer = list(range(REPEAT_HORIZON + 1))          # 13: beyond the horizon, allowed
    assert not repeats_a_run(longer + longer[:-1], longer[-1])


def test_drawn_sentences_give_the_gate_no_repeat_to_find() -> None:
    rng = np.random.default_rng(2026)
    spoken: list[int] = []
    for _ in range(1500):
        spoken.append(next_sentence(spoken, rng))
    tokens = [t for i in spoken for t in mixed_tokens(normalize(SENTENCES[i]))]
    found = repeat_regions(token_ids(tokens), REPEAT_WINDOWS)
    assert {window: regions for window, regions in found.items() if regions} == {}
    # still a random choice among all the sentences
    assert sorted(set(spoken)) == list(range(len(SENTENCES)))
