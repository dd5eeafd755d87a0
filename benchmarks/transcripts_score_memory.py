"""Peak memory and time of ``speecheval transcripts score`` on a 3-hour, 4-speaker recording.

Target (issue 4): peak memory under 500 MB for a 3-hour recording. A seeded synthetic
pair is written to a temporary folder: a reference (STM turns, RTTM, word CTM) and a
system output (SegLST turns with speakers, RTTM, word CTM) with substitutions,
deletions, insertions, shifted word times, speaker confusions and some overlapping turns.
The full command then runs in a child process (manifest reading, WER, cpWER, DER/JER
with both collars, timestamps, punctuation/numbers, every output file and the HTML
report), and the child's peak resident set size is read from ``getrusage`` so the
generation in this process does not count.

Run: ``.venv/bin/python benchmarks/transcripts_score_memory.py [--lang en|zh] [--hours 3]``
(exit 1 if the target is missed).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

MEMORY_LIMIT_MB = 500.0
SPEAKERS = 4
EN_WORDS = ("the", "we", "model", "data", "team", "meeting", "plan", "next", "week", "is",
            "ready", "and", "budget", "review", "release", "test", "user", "voice", "time",
            "agent", "podcast", "today", "about", "really", "think", "that", "good")
ZH_CHARS = "我们今天讨论一下这个项目的进度大家觉得模型数据测试发布用户声音时间会议很好"


def _fmt(value: float) -> str:
    return f"{value:.3f}"


def synthetic(folder: Path, hours: float, lang: str, seed: int = 0) -> dict[str, int]:
    """Write the reference and system files; return their sizes in words and turns."""
    rng = np.random.default_rng(seed)
    vocab = list(EN_WORDS) if lang == "en" else list(ZH_CHARS)
    per_second = 2.5 if lang == "en" else 4.0  # words (en) or characters (zh) per second
    step = 1.0 / per_second
    end_of_audio = hours * 3600.0
    ref_stm, ref_rttm, ref_ctm = [], [], []
    hyp_turns, hyp_rttm, hyp_ctm = [], [], []
    clock, words = 0.0, 0
    speakers = [f"spk{k}" for k in range(SPEAKERS)]
    while clock < end_of_audio - 30:
        speaker = int(rng.integers(0, SPEAKERS))
        count = int(rng.integers(5, 40))
        start = clock
        tokens = [str(t) for t in rng.choice(vocab, count)]
        times = [start + k * step for k in range(count)]
        end = times[-1] + step
        joiner = " " if lang == "en" else ""
        ref_stm.append(f"rec 1 {speakers[speaker]} {_fmt(start)} {_fmt(end)} "
                       f"{joiner.join(tokens)}")
        ref_rttm.append(f"SPEAKER rec 1 {_fmt(start)} {_fmt(end - start)} <NA> <NA> "
                        f"{speakers[speaker]} <NA> <NA>")
        ref_ctm.extend(f"rec 1 {_fmt(t)} {_fmt(step * 0.8)} {w}"
                       for t, w in zip(times, tokens, strict=True))
        # System: 8% substitutions, 4% deletions, 3% insertions, time jitter, and one turn
        # in ten attributed to the wrong speaker.
        out_words, out_times = [], []
        for t, w in zip(times, tokens, strict=True):
            roll = rng.random()
            if roll < 0.04:
                continue
            if roll < 0.12:
                w = str(rng.choice(vocab))
            jitter = float(rng.normal(0.0, 0.08))
            out_words.append(w)
            out_times.append(max(0.0, t + jitter))
            if rng.random() < 0.03:
                out_words.append(str(rng.choice(vocab)))
                out_times.append(max(0.0, t + step / 2))
        label = f"S{(speaker + 1) % SPEAKERS if rng.random() < 0.1 else speaker}"
        if out_words:
            order = np.argsort(out_times, kind="stable")
            hyp_start, hyp_end = out_times[order[0]], out_times[order[-1]] + step
            hyp_turns.append({"session_id": "rec", "speaker": label,
                              "start_time": round(hyp_start, 3), "end_time": round(hyp_end, 3),
                              "words": joiner.join(out_words[k] for k in order)})
            hyp_rttm.append(f"SPEAKER rec 1 {_fmt(hyp_start)} {_fmt(hyp_end - hyp_start)} "
                            f"<NA> <NA> {label} <NA> <NA>")
            hyp_ctm.extend(f"rec 1 {_fmt(out_times[k])} {_fmt(step * 0.8)} {out_words[k]}"
                           for k in order)
        words += count
        # A pause, or an overlap of up to 1.5 s with the next turn.
        clock = end + float(rng.uniform(-1.5, 1.5))
    files = {"ref.stm": ref_stm, "ref.rttm": ref_rttm, "ref.ctm": ref_ctm,
             "hyp.rttm": hyp_rttm, "hyp.ctm": hyp_ctm}
    for name, lines in files.items():
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "hyp.json").write_text(json.dumps(hyp_turns, ensure_ascii=False), encoding="utf-8")
    manifest = {
        "format": "speecheval.transcripts.manifest/1", "system": "synthetic",
        "scenarios": {"long": {"unit": "word" if lang == "en" else "char"}},
        "samples": [{"id": "rec", "scenario": "long", "duration_s": end_of_audio,
                     "source": "synthetic",
                     "reference": {"transcript": "ref.stm", "rttm": "ref.rttm",
                                   "words": "ref.ctm"},
                     "runs": [{"transcript": "hyp.json", "rttm": "hyp.rttm",
                               "words": "hyp.ctm"}]}],
    }
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return {"reference_tokens": words, "reference_turns": len(ref_stm),
            "system_turns": len(hyp_turns)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=3.0)
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sizes = synthetic(folder, args.hours, args.lang)
        command = [sys.executable, "-m", "speecheval", "transcripts", "score",
                   "--manifest", str(folder / "manifest.json"), "--out", str(folder / "out")]
        began = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - began
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 2
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    print(f"{args.hours:g} h, {args.lang}, {SPEAKERS} speakers: {sizes['reference_tokens']} "
          f"reference tokens, {sizes['reference_turns']} reference turns, "
          f"{sizes['system_turns']} system turns")
    print(done.stdout.strip())
    print(f"full score command: {elapsed:.2f} s wall, peak RSS {peak_mb:.1f} MB "
          f"(target < {MEMORY_LIMIT_MB:.0f} MB)")
    return 0 if peak_mb < MEMORY_LIMIT_MB else 1


if __name__ == "__main__":
    sys.exit(main())
