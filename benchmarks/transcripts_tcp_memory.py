"""Peak memory and time of the tcpWER traceback of one long speaker pair.

:func:`speecheval.transcripts.text.tcp.time_constrained_counts` aligns one reference
speaker with one hypothesis speaker and traces back the S/D/I split. This makes a pair of
``--words`` words each (seeded; a word every 0.5 s, the hypothesis a noisy copy of the
reference shifted by up to 1 s) and prints the peak of Python's traced allocations
(numpy's arrays included) during that call, its time, and, as the peer measured in the
same run, the size of one table of int64 costs of the pair (what a traceback over the
whole table of costs holds at least).

Usage: python benchmarks/transcripts_tcp_memory.py [--words 8000] [--collar 5]
"""

from __future__ import annotations

import argparse
import random
import time
import tracemalloc

from speecheval.transcripts.text.tcp import TimedWord, time_constrained_counts


def pair(words: int, collar: float, seed: int) -> tuple[list[TimedWord], list[TimedWord]]:
    rng = random.Random(seed)
    vocabulary = [f"w{k}" for k in range(200)]
    reference, hypothesis = [], []
    for k in range(words):
        word = rng.choice(vocabulary)
        reference.append(TimedWord(word, k * 0.5, k * 0.5 + 0.4))
        said = word if rng.random() < 0.85 else rng.choice(vocabulary)
        point = k * 0.5 + 0.2 + rng.uniform(-1, 1)
        hypothesis.append(TimedWord(said, point - collar, point + collar))
    return reference, hypothesis


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=8000)
    parser.add_argument("--collar", type=float, default=5.0)
    args = parser.parse_args()
    reference, hypothesis = pair(args.words, args.collar, 2026)
    tracemalloc.start()
    started = time.perf_counter()
    counts = time_constrained_counts(reference, hypothesis)
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    table = (len(reference) + 1) * (len(hypothesis) + 1) * 8
    print(f"pair: {len(reference)} x {len(hypothesis)} words, collar {args.collar:g} s; "
          f"errors {counts.errors} (S {counts.substitutions}, D {counts.deletions}, "
          f"I {counts.insertions})")
    print(f"traceback: peak traced memory {peak / 2**20:.1f} MiB, {seconds:.2f} s")
    print(f"peer, one int64 table of costs of this pair: {table / 2**20:.1f} MiB; "
          f"ratio peak / table {peak / table:.3f}")


if __name__ == "__main__":
    main()
