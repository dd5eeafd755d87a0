"""Speed of ``fdb10 reference-asr`` with the whisper backend.

Builds a tree with the tree builder (the 48-sample mini tree, or with ``--scale full`` the
727-sample one), removes its placement transcripts, transcribes it with Whisper tiny.en
and prints the audio seconds transcribed (interruption samples from R on), the wall and
CPU time, and the real-time factors, all measured in this run.

Target (issue 8): at least 20x real time over a tree on a 2-core machine.

Usage: python benchmarks/fdb10_reference_asr_speed.py [--scale mini|full] [--jobs N]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from speecheval.core.audio import audio_info
from speecheval.fdb.v10.builder import build_mini_tree, build_scale_tree
from speecheval.fdb.v10.reference_asr import plan_jobs, reference_asr
from speecheval.fdb.v10.speech import default_jobs


def cpu_seconds() -> float:
    """User and system time of this process and its finished worker processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=["mini", "full"], default="mini")
    parser.add_argument("--jobs", type=int, default=default_jobs())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        tree = Path(workdir) / "tree"
        if args.scale == "mini":
            build_mini_tree(tree)
        else:
            build_scale_tree(tree, seed=0)
        (tree / "asr.json").unlink()
        for path in tree.glob("*/*/output.json"):
            path.unlink()
        audio_s = 0.0
        for job in plan_jobs(tree):
            info = audio_info(job.wav)
            audio_s += info.n_samples / info.rate - job.offset_s
        cpu_before, started = cpu_seconds(), time.perf_counter()
        run = reference_asr(tree, workers=args.jobs)
        wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu_before
    print(f"{len(run.transcripts)} samples, {audio_s:.1f} s of audio transcribed, "
          f"{args.jobs} worker(s)")
    print(f"wall {wall:.1f} s ({audio_s / wall:.1f}x real time), CPU {cpu:.1f} s "
          f"({audio_s / cpu:.1f}x real time per core)")


if __name__ == "__main__":
    main()
