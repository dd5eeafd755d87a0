"""Speed of ORC-WER and tcpWER against meeteval, in one process and as whole commands.

ORC-WER: seeded meetings of 20 utterances (3-9 words from a 50-word vocabulary) spread
over 2 and over 3 hypothesis streams with about 10 % substituted and 5 % deleted words.
Our exact solver (``speecheval.transcripts.text.orc``) and meeteval's
``orc_word_error_rate`` score the same words; both must give the same error count.
tcpWER: a seeded 4-speaker session (``--tcp-words`` reference words, default 2000) with
timed segments, collar 5 s, ours (``tcp_error_rate``) against meeteval's
``tcp_word_error_rate``.

In one process each side is timed as the best of ``--repeats`` calls after one warm-up;
as whole commands, ``speecheval transcripts orc|tcp --no-normalize`` (meeteval's words)
against ``meeteval-wer orcwer|tcpwer`` on the same STM files, the minimum of three fresh
processes each. Every ratio is meeteval's time over ours measured in the same run
(above 1: ours is faster), so a loaded machine slows both sides alike.

Run: ``.venv/bin/python benchmarks/transcripts_orc_speed.py [--repeats N]
[--tcp-words N]``
"""

from __future__ import annotations

import argparse
import logging
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from whole_process import process_times

from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.text.orc import orc_error_rate
from speecheval.transcripts.text.tcp import tcp_error_rate

VOCAB = [f"w{i}" for i in range(50)]
COLLAR_S = 5.0


def meeting(seed: int, streams: int, utterances: int = 20) -> tuple[list[Segment],
                                                                     list[Segment]]:
    """Reference utterances (speakers A-D) and hypothesis streams with some errors."""
    rng = random.Random(seed)
    ref, hyp = [], []
    for u in range(utterances):
        words = [rng.choice(VOCAB) for _ in range(rng.randrange(3, 10))]
        start = 4.0 * u
        ref.append(Segment("meet", "ABCD"[rng.randrange(4)], start, start + 3.5,
                           " ".join(words)))
        out = []
        for word in words:
            roll = rng.random()
            if roll < 0.10:
                out.append(rng.choice(VOCAB))
            elif roll >= 0.15:
                out.append(word)
        hyp.append(Segment("meet", f"s{rng.randrange(streams)}", start + 0.2, start + 3.6,
                           " ".join(out)))
    return ref, hyp


def session(seed: int, words: int) -> tuple[list[Segment], list[Segment]]:
    """A 4-speaker session of about ``words`` reference words in 8-word turns of 3 s."""
    rng = random.Random(seed)
    ref, hyp = [], []
    for turn in range(words // 8):
        speaker = rng.randrange(4)
        start = 3.0 * turn
        text = [rng.choice(VOCAB) for _ in range(8)]
        ref.append(Segment("long", f"S{speaker}", start, start + 3.0, " ".join(text)))
        said = [rng.choice(VOCAB) if rng.random() < 0.1 else w for w in text
                if rng.random() >= 0.05]
        hyp.append(Segment("long", f"spk{(speaker + 1) % 4}", start + 0.3, start + 3.3,
                           " ".join(said)))
    return ref, hyp


def seglst(segments: list[Segment]) -> list[dict[str, Any]]:
    return [{"session_id": s.session_id, "speaker": s.speaker, "start_time": s.start,
             "end_time": s.end, "words": s.words} for s in segments]


def best_of(call: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Best wall time of ``repeats`` calls after one warm-up, and the last result."""
    result = call()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - start)
    return best, result


def write_stm(path: Path, segments: list[Segment]) -> None:
    path.write_text("".join(f"{s.session_id} 1 {s.speaker} {s.start:.2f} {s.end:.2f} "
                            f"{s.words}\n" for s in segments), encoding="utf-8")


def compare(name: str, ref: list[Segment], hyp: list[Segment], ours: Callable[[], Any],
            theirs: Callable[[], Any], command: list[str], repeats: int) -> bool:
    """Time one case both ways; True when both give the same errors."""
    ours_s, mine = best_of(ours, repeats)
    theirs_s, their = best_of(theirs, repeats)
    same = mine.counts.errors == their.errors
    print(f"{name}: ours {mine.counts.errors} errors / {mine.counts.reference_tokens} in "
          f"{ours_s * 1e3:.1f} ms; meeteval {their.errors} errors in {theirs_s * 1e3:.1f} ms; "
          f"ratio meeteval / ours {theirs_s / ours_s:.2f}x (in one process)"
          + ("" if same else "  ERRORS DIFFER"))
    meeteval = shutil.which("meeteval-wer", path=str(Path(sys.executable).parent))
    if meeteval is None:
        print(f"{name}: meeteval-wer not found, whole process not compared")
        return same
    with tempfile.TemporaryDirectory() as tmp:
        ref_stm, hyp_stm = Path(tmp, "ref.stm"), Path(tmp, "hyp.stm")
        write_stm(ref_stm, ref)
        write_stm(hyp_stm, hyp)
        ours_p = min(process_times([sys.executable, "-m", "speecheval", "transcripts",
                                    command[0], "--ref", str(ref_stm), "--hyp", str(hyp_stm),
                                    "--no-normalize", *command[2:]]))
        theirs_p = min(process_times([meeteval, command[1], "-r", str(ref_stm), "-h",
                                      str(hyp_stm), *command[2:], "--average-out",
                                      str(Path(tmp, "a.yaml")), "--per-reco-out",
                                      str(Path(tmp, "p.yaml"))]))
    print(f"{name}: whole process ours {ours_p:.3f} s, meeteval-wer {theirs_p:.3f} s; "
          f"ratio meeteval / ours {theirs_p / ours_p:.2f}x")
    return same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tcp-words", type=int, default=2000)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # meeteval's notes about sorting
    from meeteval.wer.wer.orc import orc_word_error_rate  # type: ignore[import-untyped]
    from meeteval.wer.wer.time_constrained import (  # type: ignore[import-untyped]
        tcp_word_error_rate,
    )

    ok = True
    for streams in (2, 3):
        ref, hyp = meeting(20260721 + streams, streams)
        ok &= compare(f"ORC-WER, 20 utterances, {streams} streams", ref, hyp,
                      lambda r=ref, h=hyp: orc_error_rate(r, h),
                      lambda r=ref, h=hyp: orc_word_error_rate(seglst(r), seglst(h)),
                      ["orc", "orcwer"], args.repeats)
    ref, hyp = session(20260722, args.tcp_words)
    ok &= compare(f"tcpWER, {args.tcp_words} words, 4 speakers, collar {COLLAR_S:g} s", ref,
                  hyp, lambda: tcp_error_rate(ref, hyp, COLLAR_S),
                  lambda: tcp_word_error_rate(seglst(ref), seglst(hyp), collar=COLLAR_S),
                  # "5", not "5.0": meeteval-wer 0.4.3 fails on a collar written "5.0"
                  ["tcp", "tcpwer", "--collar", f"{COLLAR_S:g}"], max(1, args.repeats // 2))
    print("same errors as meeteval in every case" if ok else "FAIL: errors differ")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
