"""Speed of ``fdb10 unified-score`` on a tree the size of the full v1.0 set, cold and warm.

Builds a 727-sample tree (200 interruption samples of about 30 s) with the tree builder
(or takes ``--tree``). First the targets, as a user meets them: the whole
``speecheval fdb10 unified-score`` command (interpreter start and imports included) with
``--jobs 1`` and ``--jobs 2``, each ``--repeats`` times on a new, cold VAD cache folder
(every file through Silero) and ``--repeats`` times warm (every file from the first cold
run's cache), judged by the median (the best is printed beside it), beside two
baselines measured in the same run: the command's own ``--help`` (start and imports of
the CLI alone) and ``python -c 'import numpy, click'`` (the floor any numpy CLI pays).
Then the same scoring in this process, cold and warm, with the time split (loading,
VAD, statistics, writing), the cache lookups and whether both runs wrote the same bytes;
peak memory; Silero's real-time factor per core; and the vectorised bootstrap against a
plain per-resample Python loop.

With ``--baseline SRC`` (for example ``/work/main/src``, a checkout's ``src`` folder), every
whole command is also run with that code (``PYTHONPATH=SRC``), alternating with this
code run for run, on its own cache folders, and the ratio baseline / this code is printed:
on a shared machine only such same-run ratios compare two versions.

Targets (issue 15), whole command with ``--jobs 2``: under 2 s cold and under 0.5 s warm.
Issue 29 adds a paired row, measured first: the warm command (``--jobs 2``, the cache
filled by one cold run beforehand) alternating round by round with ``python -c 'import
numpy, click'`` (and with the ``--baseline`` code), median and min, the load beside each;
target: at most 2.5x the floor's median wall time. ``--warm-only`` stops after that row.
CPU seconds (the command and its VAD workers) are printed beside wall seconds because a
shared machine inflates wall time; the load average at the start is printed too. The
commands run with Python's bytecode cache, speecheval's modules compiled beforehand, as
an installed package has them (``PYTHONDONTWRITEBYTECODE`` is dropped for them).

Usage: python benchmarks/fdb10_unified_speed.py [--workdir DIR] [--tree TREE] [--jobs N]
       [--repeats 3] [--seed 0] [--baseline SRC]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from paired_processes import Command, alternate, median_wall, row

import speecheval
from speecheval.core.executor import default_jobs
from speecheval.core.stats import bootstrap_quantile, quantile_rank, resample_indices
from speecheval.fdb.common.speech import SpeechJob, segment_files
from speecheval.fdb.common.tree import OUTPUT_WAV, USER_INTERRUPTION
from speecheval.fdb.common.tree_read import load_manifest
from speecheval.fdb.v10.builder.trees import build_scale_tree
from speecheval.fdb.v10.report.unified_files import write_unified
from speecheval.fdb.v10.scoring.unified import UnifiedResult, score_tree

SILERO_FILES = 24
COLD_TARGET_S, WARM_TARGET_S = 2.0, 0.5
WARM_FLOOR_TARGET = 2.5


def peak_rss_mib() -> tuple[float, float]:
    """Peak resident memory of this process and of its finished children, in MiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (the VAD workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed_run(score: Callable[[], UnifiedResult], out: Path
              ) -> tuple[UnifiedResult, float, float, float]:
    """Score and write once: the result, writing seconds, total wall and CPU seconds."""
    cpu, started = cpu_seconds(), time.perf_counter()
    result = score()
    write_started = time.perf_counter()
    write_unified(result, out)
    done = time.perf_counter()
    return result, done - write_started, done - started, cpu_seconds() - cpu


def report(label: str, result: UnifiedResult, writing: float, total: float, cpu: float
           ) -> None:
    t = result.timings
    lookups = ", ".join(f"{v} {k}" for k, v in result.vad_cache.lookups.items())
    print(f"\n{label}: VAD cache {lookups}")
    print(f"  loading    {t.loading:7.2f} s")
    print(f"  VAD        {t.vad:7.2f} s")
    print(f"  statistics {t.statistics:7.2f} s")
    print(f"  writing    {writing:7.2f} s")
    print(f"  total      {total:7.2f} s wall, {cpu:.2f} s CPU (scoring and writing, "
          "without the start and imports)")


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


OURS = Path(speecheval.__file__).resolve().parents[1]  # the src folder measured


def command_env(src: Path = OURS) -> dict[str, str]:
    """The environment of the measured commands: this one with ``src`` first on the
    import path and Python's bytecode cache allowed, as an installed package has it (pip
    compiles the modules when it installs; with ``PYTHONDONTWRITEBYTECODE`` set, as on
    some development machines, every run would compile the forty-odd modules the command
    imports again)."""
    env = {key: value for key, value in os.environ.items()
           if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [env.get("PYTHONPATH")])])
    return env


def compile_package(src: Path = OURS) -> None:
    """Compile speecheval's modules once, before anything is timed (``compileall``,
    what an install does); the bytecode goes to the usual ``__pycache__`` folders."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src / "speecheval")],
                   check=True, env=command_env(src), stdout=subprocess.DEVNULL)


def whole_command(args: list[str], program: list[str] | None = None, src: Path = OURS
                  ) -> tuple[float, float]:
    """Wall and CPU seconds of one ``python -m speecheval ...`` process (or of
    ``python PROGRAM``) with the code under ``src``, its worker processes included."""
    cpu, started = cpu_seconds(), time.perf_counter()
    subprocess.run([sys.executable, *(program or ["-m", "speecheval", *args])], check=True,
                   stdout=subprocess.DEVNULL, env=command_env(src))
    return time.perf_counter() - started, cpu_seconds() - cpu


def best(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """The fastest wall time and the least CPU of repeated runs (load only adds)."""
    return min(wall for wall, _ in runs), min(cpu for _, cpu in runs)


def median(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """The median wall time and CPU of repeated runs: what a user typically meets."""
    return (float(np.median([wall for wall, _ in runs])),
            float(np.median([cpu for _, cpu in runs])))


def verdict(wall: float, target: float) -> str:
    return f"target < {target} s: {'PASS' if wall < target else 'FAIL'} (median)"


def whole_commands(tree: Path, workdir: Path, jobs_list: tuple[int, ...], repeats: int,
                   baseline: Path | None = None) -> None:
    """The command as a user runs it, cold then warm, for each job count (and with the
    ``baseline`` code, alternating run for run); then the two start-up baselines."""
    codes = {"this code": OURS} | ({"baseline": baseline} if baseline is not None else {})
    for src in codes.values():
        compile_package(src)
    print("\nwhole command (interpreter start, imports, scoring, writing; modules compiled "
          "beforehand, as an install does):")
    for jobs in jobs_list:
        for label in ("cold", "warm"):
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name in codes}
            for attempt in range(repeats):
                for name, src in codes.items():
                    tag = name.replace(" ", "-")
                    # cold: a new cache folder each time; warm: the first cold run's
                    cache = f"cli-cache-{tag}-{jobs}-{attempt if label == 'cold' else 0}"
                    runs[name].append(whole_command(
                        ["fdb10", "unified-score", "--tree", str(tree), "--jobs", str(jobs),
                         "--vad-cache", str(workdir / cache),
                         "--out", str(workdir / f"cli-{tag}-{jobs}-{label}-{attempt}")],
                        src=src))
            target = COLD_TARGET_S if label == "cold" else WARM_TARGET_S
            for name, measured in runs.items():
                (wall, cpu), (low, least) = median(measured), best(measured)
                note = verdict(wall, target) if jobs == 2 else "(target is for --jobs 2)"
                print(f"  --jobs {jobs} {label}, {name}: {wall:5.2f} s wall, {cpu:5.2f} s "
                      f"CPU, median of {len(measured)} (best {low:.2f} s, {least:.2f} s); "
                      f"{note}")
            if baseline is not None:
                (base_wall, base_cpu), (ours_wall, ours_cpu) = (median(runs["baseline"]),
                                                                median(runs["this code"]))
                print(f"  --jobs {jobs} {label}, baseline / this code: "
                      f"{base_wall / ours_wall:.2f}x wall, {base_cpu / ours_cpu:.2f}x CPU "
                      f"(medians)")
    help_wall, help_cpu = best([whole_command(["fdb10", "unified-score", "--help"])
                                for _ in range(repeats)])
    floor_wall, floor_cpu = best([whole_command([], ["-c", "import numpy, click"])
                                  for _ in range(repeats)])
    print(f"  baseline, its --help (start and CLI imports): {help_wall:5.2f} s wall, "
          f"{help_cpu:5.2f} s CPU")
    print(f"  baseline, python -c 'import numpy, click':   {floor_wall:5.2f} s wall, "
          f"{floor_cpu:5.2f} s CPU")


def warm_against_floor(tree: Path, workdir: Path, repeats: int,
                       baseline: Path | None = None) -> bool:
    """Issue 29's row: the warm command against ``import numpy, click``, paired; True
    when its median is within :data:`WARM_FLOOR_TARGET` times the floor's."""
    codes = {"this code": OURS} | ({"baseline": baseline} if baseline is not None else {})
    commands: dict[str, Command] = {
        "python -c 'import numpy, click' (floor)": (
            [sys.executable, "-c", "import numpy, click"], None)}
    for name, src in codes.items():
        compile_package(src)
        cache = workdir / f"paired-cache-{name.replace(' ', '-')}"
        fill = ["--tree", str(tree), "--jobs", "2", "--vad-cache", str(cache)]
        whole_command(["fdb10", "unified-score", *fill, "--out", str(workdir / f"fill-{name}")],
                      src=src)  # the cold run that fills the cache, not timed
        # ``--force`` over one folder: each run writes a new output beside it and renames
        commands[f"unified-score warm, {name}"] = (
            [sys.executable, "-m", "speecheval", "fdb10", "unified-score", *fill, "--force",
             "--out", str(workdir / f"paired-{name.replace(' ', '-')}")], command_env(src))
    # as an environment that sets PYTHONDONTWRITEBYTECODE on a fresh checkout runs it:
    # a copy of the sources without bytecode, every module compiled again each run
    copy = workdir / "src-uncompiled"
    shutil.copytree(OURS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    argv, _ = commands["unified-score warm, this code"]
    commands["unified-score warm, this code, compiling"] = (
        argv, {**command_env(copy), "PYTHONDONTWRITEBYTECODE": "1"})
    alternate(commands, 1)  # the file cache warm, every program read once
    runs = alternate(commands, repeats)
    floor = runs["python -c 'import numpy, click' (floor)"]
    print(f"\nwarm unified-score against the floor, {repeats} alternating rounds (modules "
          "compiled beforehand, PYTHONDONTWRITEBYTECODE dropped: the target's figure; "
          "'compiling': no bytecode, PYTHONDONTWRITEBYTECODE=1), seconds:")
    for name, measured in runs.items():
        print(row(name, measured, None if measured is floor else floor))
    ratio = median_wall(runs["unified-score warm, this code"]) / median_wall(floor)
    ok = ratio <= WARM_FLOOR_TARGET
    print(f"warm unified-score: {ratio:.2f}x the floor (target at most {WARM_FLOOR_TARGET}x): "
          f"{'PASS' if ok else 'MISSES THE TARGET'}")
    if baseline is not None:
        ours, base = runs["unified-score warm, this code"], runs["unified-score warm, baseline"]
        print(f"this code / baseline: {median_wall(ours) / median_wall(base):.2f}x wall "
              f"(medians), {min(r.wall_s for r in ours) / min(r.wall_s for r in base):.2f}x "
              "(mins)")
    return ok


def loop_bootstrap_median(values: np.ndarray) -> tuple[float, float]:
    """Baseline: the same bootstrap with a Python loop over resamples."""
    indices = resample_indices(values.size)
    k = quantile_rank(0.5, values.size)
    medians = sorted(sorted(values[row].tolist())[k - 1] for row in indices)
    return medians[49], medians[1949]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--tree", type=Path, default=None,
                        help="score this tree instead of building one")
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument("--repeats", type=int, default=3,
                        help="cold and warm runs of the whole command each (judged by "
                             "the median)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", type=Path, default=None, metavar="SRC",
                        help="also run the whole commands with the speecheval package "
                             "under SRC (e.g. /work/main/src) and print the ratios")
    parser.add_argument("--warm-only", action="store_true",
                        help="stop after the paired warm row against the floor")
    args = parser.parse_args()
    if args.baseline is not None and not (args.baseline / "speecheval").is_dir():
        parser.error(f"--baseline {args.baseline}: no speecheval package in that folder")
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="fdb10-bench-", dir=args.workdir))
    try:
        tree = args.tree
        if tree is None:
            tree = workdir / "tree"
            started = time.perf_counter()
            built = build_scale_tree(tree, seed=args.seed)
            print(f"built {len(built)} samples in {time.perf_counter() - started:.1f} s "
                  "(not part of the score time)")
        print(f"load average at the start: {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores; {args.jobs} VAD worker process(es)")
        warm_against_floor(tree, workdir, max(args.repeats, 5), args.baseline)
        if args.warm_only:
            return

        whole_commands(tree, workdir, tuple(sorted({1, args.jobs})), args.repeats,
                       args.baseline)

        cache = workdir / "vad-cache"
        runs, totals = [], []
        for label in ("cold", "warm"):
            result, writing, total, cpu = timed_run(
                lambda: score_tree(tree, workers=args.jobs, vad_cache=cache),
                workdir / label)
            report(f"in this process, {label}", result, writing, total, cpu)
            runs.append(result)
            totals.append((total, cpu))
        result = runs[0]
        same = all((workdir / "cold" / name).read_bytes() == (workdir / "warm" / name).read_bytes()
                   for name in ("unified.json", "unified-samples.jsonl"))
        print(f"\ncold and warm runs wrote the same bytes: {'yes' if same else 'NO'}")
        (cold_wall, cold_cpu), (warm_wall, warm_cpu) = totals
        print(f"warm against cold in the same run: {cold_wall / warm_wall:.1f}x by wall "
              f"clock, {cold_cpu / warm_cpu:.1f}x by CPU seconds")
        own, children = peak_rss_mib()
        print(f"peak memory: this process {own:.0f} MiB, VAD workers {children:.0f} MiB")

        audio_s, wall_s, cpu_s = silero_per_core(tree)
        factor = audio_s / cpu_s
        print(f"\nSilero, one process: {audio_s:.0f} s of audio in {cpu_s:.2f} CPU s "
              f"({wall_s:.2f} s wall) = {factor:.0f}x real time per core "
              f"({audio_s / wall_s:.0f}x by wall clock)")

        rows = [row.report_dict() for row in result.rows]
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
