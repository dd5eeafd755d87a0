"""Whether ``fdb10 record`` keeps its 80 ms send schedule on a busy machine.

Each run is the whole ``speecheval fdb10 record`` command in a subprocess against the
local duplex agent (``python -m speecheval.agents.local duplex native-realtime``, its own
process, as a real server is), at ``--concurrency`` 1, 4, 8 and 16, alone and under the
reproduced stresses, for today's code (``--baseline SRC``, imported by
``PYTHONPATH=SRC``) and this code, alternating in the same run. Printed per run: samples
eligible by export's pacing check / selected, the worst send lateness (start or
completion of an append past its deadline, the quantity the check bounds at 80 ms),
whether the target is met (all eligible, worst under 40 ms), and the full garbage
collections that came while the sessions were sending, with the longest, and the
recording's wall and CPU seconds. The CPU seconds say what share of the CPUs a run needs,
to set beside the share the scheduler owes a niced process under the ``busy`` stress
(printed at the start).

The ``busy`` stress, what a loaded machine does to a recording process: ``--busy``
CPU-bound processes beside it (default 2 per core: load average about 6 on a 2-core
machine, as in the report) while the recording runs under ``nice -n 10`` (as heavy
commands are run on a shared machine). Busy processes alone do not reproduce the
report (the recorder keeps its weight and the sends stay within about 20 ms); with the
low weight, the fair scheduler (EEVDF) lets the woken sender run only when its virtual
deadline, its slice over its weight, comes up, and the sends of every session fall
behind at the same instants. Today's code asks nothing of the scheduler; this code asks
short slices for the sending thread (``core.short_slice``). The sessions have staggered
lengths (2.0 to 4.2 s), so sessions keep ending (and writing their files) while others
send.

The ``heap`` stress, what a long run does to a recording process: a full (oldest
generation) collection stops the one event loop that sends every session's packets for
as long as it takes to walk every object the process holds. A real run holds a large
heap (the command line's imports, a full-size dataset index, the traces of the sessions
in flight), and since every trace entry that outlives a young collection counts towards
the next full one, a full pass comes due every so many sessions, at a moment nobody
chooses, and every session of the run is late at that same instant. The record command
is run through :data:`HEAP_WRAPPER`, which holds ``--heap`` more index entries (two
dicts each) built just before the sessions, as the dataset index is, and brings the
collector to where a long run's sessions leave it, a full pass due, at the first
packet rather than minutes into a run. Today's code lets that pass walk the whole heap;
this code collects and freezes the heap before the sessions (``core.quiet_collector``),
so that pass comes before the first packet and a later one walks only what the
sessions made. ``heap+busy`` is both stresses at once.

Usage: python benchmarks/fdb10_capture_pacing.py --baseline SRC [--quick] [--busy N]
       [--nice 10] [--heap N] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import speecheval
from speecheval.fdb.common.eligibility import Verdict, check_pacing
from speecheval.fdb.v10.builder.clips import load_clips
from speecheval.fdb.v10.builder.dataset import write_dataset_sample
from speecheval.fdb.v10.builder.spec import Placement, SampleSpec

THIS_SRC = str(Path(speecheval.__file__).resolve().parents[1])
TARGET_LATE_MS = 40.0
PAUSES_ENV = "CAPTURE_PACING_PAUSES"

HEAP_WRAPPER = """
import gc, json, os, sys, time
import speecheval.fdb.common.capture as capture
import speecheval.fdb.common.record as record
pauses, held, began = [], [], [0.0]

def timed(phase, info):
    if info["generation"] == 2 and phase == "start":
        began[0] = time.monotonic()
    elif info["generation"] == 2:
        pauses.append([began[0], time.monotonic()])

def with_index(original):
    def execute(*args, **kwargs):
        held.extend({"sample_id": f"s/{i}", "files": {"input.wav": str(i)}}
                    for i in range(int(sys.argv[1])))
        gc.collect()
        # CPython 3.11-3.13 makes a full pass at a young pass once the oldest
        # generation's count is over its threshold and the objects moved into it since
        # the last full pass are a quarter of what that pass left: make both true
        gc.disable()
        held.append([[] for _ in range(len(gc.get_objects()) // 4 + 1)])
        for _ in range(gc.get_threshold()[2] + 1):
            gc.collect(1)
        gc.callbacks.append(timed)
        return original(*args, **kwargs)   # the collector stays off until a packet
    return execute

def sending(original):
    def packets(*args, **kwargs):
        gc.enable()
        return original(*args, **kwargs)
    return packets

record.execute = with_index(record.execute)
capture.packets = sending(capture.packets)
from speecheval.cli import main
code = main(sys.argv[2:])
with open(os.environ["CAPTURE_PACING_PAUSES"], "w") as out:
    json.dump(pauses, out)
sys.exit(code)
"""
"""``python -c HEAP_WRAPPER N ARGS...`` runs ``speecheval ARGS`` holding ``N`` more
index entries with a full collection due, the collector held off from then until the first
session starts sending (so that the pass comes while packets go out, not while the
sessions connect), and writes each full collection's (start, end) on the monotonic
clock to ``$CAPTURE_PACING_PAUSES``."""
STRESSES = ("alone", "busy", "heap", "heap+busy")


def build(root: Path, count: int) -> Path:
    """``count`` backchannel samples of 2.0 to 4.2 s (staggered by 0.2 s)."""
    clips = load_clips()
    for index in range(1, count + 1):
        duration = round(2.0 + 0.2 * ((index - 1) % 12), 1)
        write_dataset_sample(SampleSpec(subset="icc_backchannel", local_id=str(index),
                                        duration_s=duration,
                                        placements=(Placement("w_hello", 0.2),)), clips, root)
    return root


def _spin() -> None:
    while True:
        pass


@contextmanager
def busy(count: int) -> Iterator[None]:
    """``count`` CPU-bound processes for the duration of the block."""
    workers = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(count)]
    for worker in workers:
        worker.start()
    try:
        yield
    finally:
        for worker in workers:
            worker.terminate()
            worker.join()


@contextmanager
def agent() -> Iterator[str]:
    """The local duplex agent in its own process (its own interpreter lock)."""
    env = {**os.environ, "PYTHONPATH": THIS_SRC}
    process = subprocess.Popen([sys.executable, "-m", "speecheval.agents.local", "duplex",
                                "native-realtime", "-o", "pacing=duplex"],
                               stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("ws://"), url
        yield url
    finally:
        process.terminate()
        process.wait(10)


def record(src: str, dataset: Path, run: Path, url: str, concurrency: int, count: int,
           nice: int, heap: int | None) -> tuple[float, float]:
    """Run ``fdb10 record`` whole; with ``heap``, through :data:`HEAP_WRAPPER` holding
    that many more objects (its collections written to ``run``'s sibling ``.pauses``).
    Returns its wall seconds and its CPU seconds (user and system)."""
    env = {**os.environ, "PYTHONPATH": src, PAUSES_ENV: str(run) + ".pauses"}
    program = ["-m", "speecheval"] if heap is None else ["-c", HEAP_WRAPPER, str(heap)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(["nice", "-n", str(nice), sys.executable, *program, "-q",
                    "fdb10", "record", "--dataset-root", str(dataset), "--agent",
                    "native-realtime", "-o", f"url={url}", "--out", str(run),
                    "--concurrency", str(concurrency), "--max-per-subset", str(count),
                    "--grace", "0.3"], env=env, check=False, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def nice_share(busy_count: int, nice: int) -> float:
    """The CPUs the fair scheduler owes one process at ``nice`` beside ``busy_count``
    CPU-bound processes at niceness 0: its weight over all the weights, times the cores
    (the kernel's weights: 1024 at nice 0, each step of nice about 1.25 times less)."""
    weight = 1024 / 1.25 ** nice
    return min(1.0, (os.cpu_count() or 1) * weight / (busy_count * 1024 + weight))


def judge(run: Path) -> tuple[int, int, float, str]:
    """(eligible, selected, worst lateness in ms) by export's pacing rule, and the full
    collections that overlapped the sessions' sending (count and longest), when the run
    went through :data:`HEAP_WRAPPER`."""
    eligible = worst = 0.0
    selection = json.loads((run / "run.json").read_text())["selection"]
    sending: list[tuple[float, float]] = []
    for sample_id in selection:
        folder = run / "samples" / sample_id
        status = json.loads((folder / "status.json").read_text())
        trace = [json.loads(line) for line in (folder / "trace.jsonl").read_text().splitlines()]
        t0 = trace[0]["t0_monotonic"]
        sending.append((t0, t0 + status["duration_s"]))
        verdict = Verdict()
        expected = math.ceil(status.get("input_samples", 0) / (status["input_rate"] * 80 // 1000))
        check_pacing([e for e in trace if e["type"] == "append"], expected, verdict)
        worst = max(worst, verdict.pacing["max_start_late_s"], verdict.pacing["max_end_late_s"])
        eligible += status["status"] == "complete" and not verdict.reasons
    return int(eligible), len(selection), worst * 1000, _pauses(run, sending)


def _pauses(run: Path, sending: list[tuple[float, float]]) -> str:
    """``K/L ms``: the full collections that overlapped some session's sending, and the
    longest of them; ``-`` for a run without the wrapper."""
    path = run.with_name(run.name + ".pauses")
    if not path.is_file():
        return "-"
    during = [(end - start) * 1000 for start, end in json.loads(path.read_text())
              if any(start < stop and end > begin for begin, stop in sending)]
    return f"{len(during)}/{max(during, default=0.0):.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", required=True, help="today's src folder")
    parser.add_argument("--quick", action="store_true",
                        help="concurrency 1 and 8 only, fewer samples")
    parser.add_argument("--busy", type=int, default=2 * (os.cpu_count() or 1))
    parser.add_argument("--nice", type=int, default=10,
                        help="the recording's niceness under the stress")
    parser.add_argument("--heap", type=int, default=200_000,
                        help="index entries the heap stress adds to the recording")
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    levels = (1, 8) if args.quick else (1, 4, 8, 16)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="capture-pacing-"))
    per_run = {level: max(level, 4) * (1 if args.quick else 2) for level in levels}
    count = max(per_run.values())
    dataset = build(work / "ds", count)
    codes = {"today": args.baseline, "this": THIS_SRC}
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores); "
          f"{count} samples of 2.0-4.2 s; busy = {args.busy} busy processes and the "
          f"recording at nice {args.nice}; heap = {args.heap:,} more index entries held, "
          f"a full collection due at the first packet")
    print(f"under busy, the recording is owed {nice_share(args.busy, args.nice):.3f} CPUs "
          f"(its weight at nice {args.nice} beside {args.busy} at nice 0); where its "
          f"alone row's cpu s over wall s is above that, the process needs more than it "
          f"is owed and falls behind, whichever of its threads sends")
    print(f"{'stress':9} {'conc':>4}  {'code':6} {'eligible':>9} {'worst ms':>9} "
          f"{'target':>6} {'full gc':>8} {'wall s':>7} {'cpu s':>6} {'load':>5}")
    summary: dict[str, dict[str, list[bool]]] = {}
    with agent() as url:
        for stress in STRESSES:
            loaded = "busy" in stress
            with busy(args.busy if loaded else 0):
                time.sleep(1.0 if loaded else 0.0)
                for concurrency in levels:
                    for name, src in codes.items():
                        run = work / f"run-{name}-{concurrency}-{stress}"
                        wall, cpu = record(src, dataset, run, url, concurrency,
                                      per_run[concurrency], args.nice if loaded else 0,
                                      args.heap if "heap" in stress else None)
                        good, total, worst, pauses = judge(run)
                        met = good == total and worst < TARGET_LATE_MS
                        summary.setdefault(stress, {}).setdefault(name, []).append(met)
                        print(f"{stress:9} {concurrency:>4}  {name:6} {good:>4}/{total:<4} "
                              f"{worst:>9.1f} {'met' if met else 'missed':>6} {pauses:>8} "
                              f"{wall:>7.1f} {cpu:>6.1f} {os.getloadavg()[0]:>5.2f}", flush=True)
    for stress, by_code in summary.items():
        print(f"{stress}: target met in " + ", ".join(
            f"{name} {sum(mets)}/{len(mets)}" for name, mets in by_code.items())
            + f" rows (all eligible, worst < {TARGET_LATE_MS:g} ms)")


if __name__ == "__main__":
    main()
