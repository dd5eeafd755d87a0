"""A small v1.5 tree with both members of each pair: espeak-ng speech for output.wav and
clean_output.wav, and hand-written transcripts in the official format (output.json,
clean_output.json, input.json, clean_input.json), for the behaviour, prosody and report
tests.

Every sample has the overlap window [5.0, 6.0] s and 12 s outputs. In output.wav the
system answers the context from 1.0 s, stops at 5.5 s and from 7.0 s speaks the
sample's ``after`` sentence; clean_output.wav is the answer alone from 1.0 s.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from speecheval.core.audio import write_wav
from speecheval.fdb.v15.builder import speech
from speecheval.fdb.v15.builder.synthetic_words import spread_words, write_transcript

RATE = 16_000
ANSWER = ("The city has a fine art museum, a big park by the river and an old cathedral. "
          "It also has a small zoo and a busy market square.")
OVERLAP = "Oh, before I forget, could you also suggest some good restaurants nearby?"
# sample -> what the system says after the overlap
AFTER = {
    "user_interruption/1": "Sure, two good restaurants nearby are Luigi's and the Blue Door.",
    "user_interruption/2": "Of course, for dinner nearby try the little Thai restaurant.",
    "user_interruption/3": "Good restaurants nearby include a pizzeria and a sushi bar.",
    "user_interruption/4": "Sorry, I didn't catch that, could you say it again?",
    "talking_to_other/1": "",
}


def build(root: Path) -> Path:
    answer = speech.utterance(ANSWER, "en-us", RATE)
    n = 12 * RATE
    for sample_id, after in AFTER.items():
        folder = root / sample_id
        folder.mkdir(parents=True)
        clean = np.zeros(n)
        clean[RATE:RATE + answer.size] = answer[:n - RATE]
        output = np.zeros(n)
        output[RATE:RATE + round(4.5 * RATE)] = answer[:round(4.5 * RATE)]
        answer_end = min(1.0 + answer.size / RATE, 11.0)
        cut_words = spread_words(ANSWER, 1.0, answer_end)
        said = [w for w in cut_words if w["timestamp"][1] <= 5.5]  # type: ignore[index]
        if after:
            reply = speech.utterance(after, "en-us", RATE)
            output[7 * RATE:7 * RATE + reply.size] = reply[:5 * RATE]
            said += spread_words(after, 7.0, 7.0 + min(reply.size / RATE, 5.0))
        write_wav(folder / "output.wav", output, RATE)
        write_wav(folder / "clean_output.wav", clean, RATE)
        heard = np.zeros(n)
        write_wav(folder / "input.wav", heard, RATE)
        write_wav(folder / "clean_input.wav", heard, RATE)
        write_transcript(folder / "output.json", said)
        write_transcript(folder / "clean_output.json", cut_words)
        context = spread_words("What are some good places to visit in the city?", 0.2, 3.0)
        write_transcript(folder / "clean_input.json", context)
        write_transcript(folder / "input.json", context + spread_words(OVERLAP, 5.0, 6.0))
        (folder / "metadata.json").write_text(json.dumps(
            {"context_text": "What are some good places to visit in the city?",
             "current_turn_text": OVERLAP, "timestamps": [5.0, 6.0]}))
    return root
