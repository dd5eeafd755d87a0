"""Word-timed transcripts of synthetic speech, in the official format (``output.json``).

espeak-ng gives no word times, so where a tree is built from synthetic speech without a
recogniser (the speed benchmark, the tests' judged tree) the words of each sentence are
spread evenly over the stretch of audio the sentence was placed in.
"""

from __future__ import annotations

import json
from pathlib import Path


def spread_words(text: str, start_s: float, end_s: float) -> list[dict[str, object]]:
    """The words of ``text`` spread evenly over [start_s, end_s] as official chunks (each
    ends 20 ms before the next starts)."""
    words = text.split()
    step = (end_s - start_s) / len(words)
    return [{"text": w, "timestamp": [round(start_s + i * step, 3),
                                      round(start_s + (i + 1) * step - 0.02, 3)]}
            for i, w in enumerate(words)]


def write_transcript(path: Path, words: list[dict[str, object]]) -> None:
    """``{"text", "chunks"}`` as the official recogniser step writes it."""
    text = " ".join(str(w["text"]) for w in words)
    path.write_text(json.dumps({"text": text, "chunks": words}), encoding="utf-8")
