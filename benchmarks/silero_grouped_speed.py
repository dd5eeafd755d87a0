"""CPU seconds of Silero's 16 kHz probabilities for many files, file by file against groups
of G files whose LSTM steps run as one batch (``SileroOnnx.batched_probabilities_many``).

The files are cut from the deterministic mixed audio of ``silero_speed.py`` (speech,
pauses, noise, tones, silence), each 28 to 32 s long like the FDB v1.0 outputs (about 940
windows), and every path runs on the same files in the same process. CPU time of this
process is measured (every session runs on one thread), the best of ``--repeat`` rounds;
each group size's probabilities are checked bit for bit against the per-file ones. Run
from the repository root::

    .venv/bin/python benchmarks/silero_grouped_speed.py [--files 48] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from silero_speed import RATE, mixed_audio

from speecheval.vad.silero_model import SileroOnnx, locate_model_files

Files = list[NDArray[np.float32]]


def cut_files(count: int, seed: int = 1) -> Files:
    """``count`` consecutive pieces of the mixed audio, 28 to 32 s each."""
    rng = np.random.default_rng(seed)
    lengths = [round(rng.uniform(28, 32) * RATE) for _ in range(count)]
    audio = mixed_audio(sum(lengths) / RATE / 60 + 0.1)
    edges = np.cumsum([0, *lengths])
    return [audio[low:high].copy() for low, high in zip(edges[:-1], edges[1:], strict=True)]


def best_cpu(runs: dict[str, Callable[[], Files]], repeat: int
             ) -> dict[str, tuple[float, Files]]:
    """Least CPU seconds of each run over ``repeat`` rounds, with that round's result. Each
    round runs every path once, in turn, so a change in the machine's load during the
    benchmark falls on all of them alike."""
    best: dict[str, tuple[float, Files]] = {}
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.process_time()
            result = run()
            cpu = time.process_time() - start
            if name not in best or cpu < best[name][0]:
                best[name] = (cpu, result)
    return best


def grouped(onnx: SileroOnnx, files: Files, size: int) -> Callable[[], Files]:
    """All files, ``size`` at a time, in their order."""
    return lambda: [probs for first in range(0, len(files), size)
                    for probs in onnx.batched_probabilities_many(files[first: first + size])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=48)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--groups", default="2,3,4,6,8", help="group sizes, comma-separated")
    args = parser.parse_args()

    files = cut_files(args.files)
    # every session made before anything is timed (each is made on first use)
    onnx = SileroOnnx(locate_model_files()).loaded()
    onnx.batched_probabilities_many(files[:2])
    sizes = [int(text) for text in args.groups.split(",")]
    runs: dict[str, Callable[[], Files]] = {
        "per file": lambda: [onnx.batched_probabilities(x) for x in files]}
    runs |= {f"G = {size}": grouped(onnx, files, size) for size in sizes}
    best = best_cpu(runs, args.repeat)
    alone, reference = best["per file"]
    seconds = sum(x.size for x in files) / RATE
    print(f"{len(files)} files, {seconds:.0f} s of audio, "
          f"{sum(p.size for p in reference)} windows; best of {args.repeat} rounds")
    print(f"{'path':<12}{'cpu s':>8}{'vs per file':>13}  bit-identical")
    for name, (cpu, result) in best.items():
        same = all(np.array_equal(a, b) for a, b in zip(result, reference, strict=True))
        print(f"{name:<12}{cpu:8.3f}{cpu / alone:13.3f}  {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
