"""Speed of ``fdb10 unified-score`` on a tree the size of the full v1.0 set.

Builds a 727-sample tree (200 interruption samples of about 30 s) with the tree builder,
scores it in this process and prints the time split (loading, VAD, statistics, writing),
peak memory, Silero's real-time factor per core, and the vectorised bootstrap against a
plain per-resample Python loop (the named baseline), all measured in this run.

Targets (issue 2): unified-score under 60 s on a 2-core machine, statistics (all
bootstraps) under 2 s, Silero at least 300x real time per core.

Usage: python benchmarks/fdb10_unified_speed.py [--workdir DIR] [--jobs N] [--seed 0]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from speecheval.core.stats import bootstrap_quantile, quantile_rank, resample_indices
from speecheval.fdb.v10.builder import build_scale_tree
from speecheval.fdb.v10.outputs import write_unified
from speecheval.fdb.v10.scoring import score_tree
from speecheval.fdb.v10.speech import SpeechJob, default_jobs, segment_files
from speecheval.fdb.v10.tree import OUTPUT_WAV, USER_INTERRUPTION, load_manifest

SILERO_FILES = 24


def peak_rss_mib() -> tuple[float, float]:
    """Peak resident memory of this process and of its finished children, in MiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def silero_per_core(tree: Path) -> tuple[float, float, float]:
    """Audio, wall and CPU seconds of Silero on SILERO_FILES files in one process.

    CPU seconds are the per-core figure when other work shares the machine."""
    manifest = load_manifest(tree)
    entries = [e for e in manifest.samples if e.task == USER_INTERRUPTION][:SILERO_FILES]
    jobs = [SpeechJob(e.sample_id, e.file(tree, OUTPUT_WAV), e.files[OUTPUT_WAV],
                      e.input_duration_s) for e in entries]
    segment_files(jobs[:1], workers=1, advance=lambda units=1: None)  # load the model first
    started, cpu_started = time.perf_counter(), time.process_time()
    segment_files(jobs, workers=1, advance=lambda units=1: None)
    return (sum(e.input_duration_s for e in entries), time.perf_counter() - started,
            time.process_time() - cpu_started)


def loop_bootstrap_median(values: np.ndarray) -> tuple[float, float]:
    """Baseline: the same bootstrap with a Python loop over resamples."""
    indices = resample_indices(values.size)
    k = quantile_rank(0.5, values.size)
    medians = sorted(sorted(values[row].tolist())[k - 1] for row in indices)
    return medians[49], medians[1949]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="fdb10-bench-", dir=args.workdir))
    try:
        tree = workdir / "tree"
        started = time.perf_counter()
        built = build_scale_tree(tree, seed=args.seed)
        build_s = time.perf_counter() - started
        print(f"built {len(built)} samples in {build_s:.1f} s (not part of the score time)")

        started = time.perf_counter()
        result = score_tree(tree, workers=args.jobs)
        write_started = time.perf_counter()
        write_unified(result, workdir / "unified")
        writing = time.perf_counter() - write_started
        total = time.perf_counter() - started
        t = result.timings
        own, children = peak_rss_mib()
        print(f"\nunified-score, {args.jobs} worker process(es) for VAD")
        print(f"  loading    {t.loading:7.2f} s")
        print(f"  VAD        {t.vad:7.2f} s")
        print(f"  statistics {t.statistics:7.2f} s")
        print(f"  writing    {writing:7.2f} s")
        print(f"  total      {total:7.2f} s   target < 60 s: "
              f"{'PASS' if total < 60 else 'FAIL'} ({60 / total:.1f}x inside)")
        print(f"  statistics target < 2 s: {'PASS' if t.statistics < 2 else 'FAIL'}")
        print(f"  peak memory: this process {own:.0f} MiB, VAD workers {children:.0f} MiB")

        audio_s, wall_s, cpu_s = silero_per_core(tree)
        factor = audio_s / cpu_s
        print(f"\nSilero, one process: {audio_s:.0f} s of audio in {cpu_s:.2f} CPU s "
              f"({wall_s:.2f} s wall) = {factor:.0f}x real time per core "
              f"({audio_s / wall_s:.0f}x by wall clock); target >= 300x: "
              f"{'PASS' if factor >= 300 else 'FAIL'}")

        rows = [row.record() for row in result.rows]
        latencies = np.array([r["latency_s"] if r.get("latency_s") is not None else np.inf
                              for r in rows if r.get("outcome")], dtype=np.float64)
        started = time.perf_counter()
        fast = bootstrap_quantile(latencies, 0.5)
        vectorised = time.perf_counter() - started
        started = time.perf_counter()
        slow = loop_bootstrap_median(latencies)
        looped = time.perf_counter() - started
        assert fast is not None
        same = (fast.low, fast.high) == tuple(None if np.isinf(v) else v for v in slow)
        print(f"\nbootstrap of a median over {latencies.size} samples (2000 resamples): "
              f"vectorised {vectorised * 1000:.1f} ms vs per-resample Python loop "
              f"(baseline) {looped * 1000:.1f} ms = {looped / vectorised:.0f}x; "
              f"same interval: {same}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
