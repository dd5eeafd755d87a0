"""Regenerate the espeak-ng speech clips that the FDB v1.0 tree builder mixes into trees.

Each utterance is made word by word: every word is synthesised on its own, resampled to
16 kHz, trimmed to its audible part and padded to a whole millisecond, and the words are
joined with a fixed short gap. The word times in ``index.json`` are therefore exact by
construction, not estimated by an aligner. The gap stays well under Silero's 100 ms
minimum silence, so an utterance is one continuous speech segment.

Run from the repository root (needs the Debian package ``espeak-ng``)::

    .venv/bin/python scripts/make_fdb_speech.py [--out DIR]

The output is byte-identical across runs with the same espeak-ng build; the version used is
recorded in ``index.json``.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from espeak_speech import RATE, audible_span, speak
from numpy.typing import NDArray

from speecheval.core.audio import write_wav
from speecheval.core.canonical_json import dumps
from speecheval.core.hashing import sha256_file
from speecheval.core.output import atomic_write_text

GRID = RATE // 1000  # word boundaries fall on whole milliseconds (16 samples)
GAP_MS = 40  # silence between words: far below Silero's 100 ms minimum silence
MARGIN_MS = 3  # kept on both sides of a word's audible part
VOICE = "en-us"
SPEED_WPM = 175

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src/speecheval/fdb/v10/data/speech"

# name -> text. Names say the length class: w = one word, s = short, m = medium, l = long.
UTTERANCES: dict[str, str] = {
    "w_yeah": "yeah",
    "w_okay": "okay",
    "w_sure": "sure",
    "w_right": "right",
    "w_hello": "hello",
    "w_great": "great",
    "s_i_see": "I see",
    "s_makes_sense": "that makes sense",
    "s_good_question": "good question",
    "s_let_me_think": "let me think",
    "m_help": "sure I can help with that",
    "m_suggest": "here is what I would suggest",
    "m_weather": "the weather today is sunny and warm",
    "m_tell_more": "can you tell me more about it",
    "m_plan": "that sounds like a good plan",
    "l_novel": "one good choice is a classic novel about growing up in a small town",
    "l_language": "there are many ways to learn a new language and daily practice helps",
    "l_museum": "the museum opens at nine in the morning and closes at six in the evening",
    "l_walk": "you could start with a short walk and then try some light stretching",
}


def espeak_version() -> str:
    """The espeak-ng version line, recorded so a regeneration can be compared."""
    out = subprocess.run(["espeak-ng", "--version"], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def synth_word(word: str, workdir: Path) -> NDArray[np.float32]:
    """One word from espeak-ng, at 16 kHz, trimmed and padded to whole milliseconds."""
    audio = speak(word, VOICE, SPEED_WPM, workdir)
    first, end = audible_span(audio, word)
    margin = MARGIN_MS * GRID
    word_audio = audio[max(first - margin, 0):min(end + margin, audio.shape[0])]
    padded = -(-word_audio.shape[0] // GRID) * GRID
    return np.pad(word_audio, (0, padded - word_audio.shape[0]))


def make_utterance(text: str, workdir: Path) -> tuple[NDArray[np.int16], list[dict[str, object]]]:
    """Join the words of ``text`` with GAP_MS gaps; return int16 audio and word times."""
    gap = np.zeros(GAP_MS * GRID, dtype=np.float32)
    pieces: list[NDArray[np.float32]] = []
    words: list[dict[str, object]] = []
    cursor = 0
    for index, word in enumerate(text.split()):
        if index:
            pieces.append(gap)
            cursor += gap.shape[0]
        audio = synth_word(word, workdir)
        words.append({"text": word, "start_s": cursor / RATE,
                      "end_s": (cursor + audio.shape[0]) / RATE})
        pieces.append(audio)
        cursor += audio.shape[0]
    joined = np.concatenate(pieces)
    pcm = np.round(np.clip(joined, -1.0, 1.0) * 32767.0).astype(np.int16)
    return pcm, words


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    clips = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in UTTERANCES.items():
            pcm, words = make_utterance(text, Path(tmp))
            path = out / f"{name}.wav"
            write_wav(path, pcm, RATE)
            clips.append({"name": name, "file": path.name, "text": text, "words": words,
                          "n_samples": int(pcm.shape[0]), "sha256": sha256_file(path)})
    index = {"kind": "speecheval-fdb-speech-clips", "rate": RATE, "gap_ms": GAP_MS,
             "generator": {"tool": espeak_version(), "voice": VOICE, "speed_wpm": SPEED_WPM,
                           "script": "scripts/make_fdb_speech.py"},
             "clips": clips}
    atomic_write_text(out / "index.json", dumps(index))
    total = sum(p.stat().st_size for p in out.glob("*.wav"))
    print(f"wrote {len(clips)} clips, {total / 1e6:.2f} MB, to {out}")


if __name__ == "__main__":
    main()
