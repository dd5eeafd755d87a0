"""Speed of ``fdb15 score --judge offline --prosody --jobs 2`` on v1.5 pairs of 20 s.

Issue 11's target: 498 pairs of about 20 s scored with timing, prosody and the offline
judge in under 10 minutes on 2 cores. This builds ``--pairs`` pairs (default 498, the
full set) in the full set's proportions (200 user interruption, 99 backchannel, 100
talking to other, 100 background speech) from espeak-ng speech: 20 s outputs, clean
outputs, inputs and word-timed transcripts, where every interruption pair answers the
overlap (the worst case: each is a prosody trial). Then it runs the command as a user
does, in its own process, and prints its wall time: THE FIGURE, against the 600 s target.

Baseline, in the same run on the same tree: the same command with ``--jobs 1`` (Silero,
Praat and DNSMOS in one process). Its wall time and the ratio say what the two worker
processes bring, which means more than seconds on a machine shared with other work. The
two runs must write the same bytes (checked). With fewer than 498 pairs the figure is
EXTRAPOLATED, and printed as such: the command also runs on a tree of 5 pairs (one or
two per scenario) to measure what does not grow with the tree (start-up, loading Silero,
MiniLM, Praat and DNSMOS in each process), and the estimate is that plus the measured
per-pair slope times 498 - 5. The load average is printed: on a shared machine every
wall time is an upper bound.

Usage: python benchmarks/fdb15_score_speed.py [--pairs 498] [--workdir DIR] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from speecheval.core.audio import write_wav
from speecheval.fdb.v15.builder import speech
from speecheval.fdb.v15.builder.synthetic_words import spread_words, write_transcript
from speecheval.fdb.v15.dataset.layout import DECLARED_SIZES

RATE = 16_000
SECONDS = 20
FULL_PAIRS = 498
"""The issue's count (the declared sizes add up to 499)."""
TARGET_S = 600.0
SMALL_PAIRS = 5
"""The tree that measures the fixed costs (2 user interruption, 1 of each other)."""
ANSWER = ("The city has a fine art museum, a big park by the river and an old cathedral. "
          "It also has a small zoo, a busy market square and many quiet cafes by the "
          "harbour, and in the evening the old town is lit up.")
OVERLAP = "Oh, before I forget, could you also suggest some good restaurants nearby?"
REPLY = ("Sure, two good restaurants nearby are Luigi's pizzeria and the Blue Door bistro, "
         "and both are open late tonight.")
COMPARED_FILES = ("timing-samples.jsonl", "behaviour-samples.jsonl", "behaviour.json",
                  "prosody-samples.jsonl", "prosody.json")


def counts(pairs: int) -> dict[str, int]:
    """Pairs per scenario in the full set's proportions (at least one each)."""
    return {scenario: max(1, round(pairs * size / sum(DECLARED_SIZES.values())))
            for scenario, size in DECLARED_SIZES.items()}


def build_tree(root: Path, per_scenario: dict[str, int]) -> None:
    """20 s pairs: the answer from 1 s, cut at the overlap (8-9 s), the reply from 10 s."""
    answer = speech.utterance(ANSWER, "en-us", RATE)
    reply = speech.utterance(REPLY, "en-us", RATE)
    user = speech.utterance(OVERLAP, "en-us", RATE)
    n = SECONDS * RATE
    for scenario, count in per_scenario.items():
        for index in range(1, count + 1):
            folder = root / scenario / str(index)
            folder.mkdir(parents=True)
            clean = np.zeros(n)
            clean[RATE:RATE + min(answer.size, n - RATE)] = answer[:n - RATE]
            output = np.zeros(n)
            output[RATE:8 * RATE] = answer[:7 * RATE]
            output[10 * RATE:10 * RATE + min(reply.size, 9 * RATE)] = reply[:9 * RATE]
            heard = np.zeros(n)
            heard[8 * RATE:8 * RATE + min(user.size, RATE)] = user[:RATE]
            for name, samples in (("output.wav", output), ("clean_output.wav", clean),
                                  ("input.wav", heard), ("clean_input.wav", np.zeros(n))):
                write_wav(folder / name, samples, RATE)
            answer_words = spread_words(ANSWER, 1.0, min(1.0 + answer.size / RATE, 19.5))
            write_transcript(folder / "clean_output.json", answer_words)
            write_transcript(folder / "output.json",
                             [w for w in answer_words if w["timestamp"][1] <= 8.0]  # type: ignore[index]
                             + spread_words(REPLY, 10.0, 10.0 + min(reply.size / RATE, 9.0)))
            (folder / "metadata.json").write_text(json.dumps(
                {"context_text": "What are some good places to visit in the city?",
                 "current_turn_text": OVERLAP, "timestamps": [8.0, 9.0]}))


def score(tree: Path, out: Path, jobs: int) -> tuple[float, float]:
    """Run ``fdb15 score`` as a user does; its wall and CPU seconds (all its processes)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "speecheval", "fdb15", "score", "--tree", str(tree),
                    "--out", str(out), "--judge", "offline", "--prosody", "--jobs", str(jobs)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=FULL_PAIRS)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="fdb15-speed-"))
    tree = workdir / "tree"
    for old in ("tree", "small", "scored-jobs", "scored-one", "scored-small"):
        shutil.rmtree(workdir / old, ignore_errors=True)
    per_scenario = counts(args.pairs)
    build_tree(tree, per_scenario)
    pairs = sum(per_scenario.values())
    print(f"{pairs} pairs of {SECONDS} s {per_scenario}; cores {os.cpu_count()}, load "
          f"average at start {', '.join(f'{x:.2f}' for x in os.getloadavg())} (UNDER LOAD "
          "when the machine is shared: wall times are upper bounds)")
    figure, figure_cpu = score(tree, workdir / "scored-jobs", args.jobs)
    baseline, baseline_cpu = score(tree, workdir / "scored-one", 1)
    same = all((workdir / "scored-jobs" / name).read_bytes()
               == (workdir / "scored-one" / name).read_bytes() for name in COMPARED_FILES)
    print(f"load average at end {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"baseline, same run: --jobs 1: {baseline:.1f} s wall, {baseline_cpu:.1f} s CPU")
    print(f"fdb15 score --judge offline --prosody --jobs {args.jobs}: {figure:.1f} s wall, "
          f"{figure_cpu:.1f} s CPU; {baseline / figure:.2f}x the speed of --jobs 1; "
          f"same bytes as --jobs 1: {'yes' if same else 'NO'}")
    estimate, estimate_cpu, kind = figure, figure_cpu, "MEASURED"
    if pairs < FULL_PAIRS:
        small = counts(4)              # 2 + 1 + 1 + 1 = SMALL_PAIRS
        build_tree(workdir / "small", small)
        fixed, fixed_cpu = score(workdir / "small", workdir / "scored-small", args.jobs)
        per_pair = max(0.0, (figure - fixed) / (pairs - SMALL_PAIRS))
        per_pair_cpu = max(0.0, (figure_cpu - fixed_cpu) / (pairs - SMALL_PAIRS))
        estimate = fixed + per_pair * (FULL_PAIRS - SMALL_PAIRS)
        estimate_cpu = fixed_cpu + per_pair_cpu * (FULL_PAIRS - SMALL_PAIRS)
        kind = (f"EXTRAPOLATED from {pairs} pairs ({SMALL_PAIRS} pairs: {fixed:.1f} s wall, "
                f"{fixed_cpu:.1f} s CPU; {per_pair:.2f} s wall, {per_pair_cpu:.2f} s CPU per "
                "further pair)")
    passed = estimate < TARGET_S
    print(f"FIGURE: {FULL_PAIRS} pairs in {estimate:.0f} s ({estimate / 60:.1f} min) with "
          f"--jobs {args.jobs}, {kind}; target under {TARGET_S:.0f} s: "
          f"{'PASS' if passed else 'FAIL'}")
    print(f"CPU: {estimate_cpu:.0f} s for {FULL_PAIRS} pairs; on {args.jobs} idle cores "
          f"at best {estimate_cpu / args.jobs:.0f} s wall "
          f"({'under' if estimate_cpu / args.jobs < TARGET_S else 'over'} the target)")
    return 0 if passed and same else 1


if __name__ == "__main__":
    sys.exit(main())
