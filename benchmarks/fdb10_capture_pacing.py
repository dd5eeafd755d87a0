"""Whether ``fdb10 record`` keeps its 80 ms send schedule on a busy machine.

Each run is the whole ``speecheval fdb10 record`` command in a subprocess against the
local duplex agent (``python -m speecheval.agents.local duplex native-realtime``, its own
process, as a real server is), at ``--concurrency`` 1, 4, 8 and 16, alone and under the
reproduced stress, for today's code (``--baseline SRC``, imported by ``PYTHONPATH=SRC``)
and this code, alternating in the same run. Printed per run: samples eligible by
export's pacing check / selected, and the worst send lateness (start or completion of an
append past its deadline, the quantity the check bounds at 80 ms).

The reproduced stress, what a loaded machine does to a recording process: ``--busy``
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

Usage: python benchmarks/fdb10_capture_pacing.py --baseline SRC [--quick] [--busy N]
       [--nice 10] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
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
           nice: int) -> float:
    env = {**os.environ, "PYTHONPATH": src}
    started = time.perf_counter()
    subprocess.run(["nice", "-n", str(nice), sys.executable, "-m", "speecheval", "-q",
                    "fdb10", "record", "--dataset-root", str(dataset), "--agent",
                    "native-realtime", "-o", f"url={url}", "--out", str(run),
                    "--concurrency", str(concurrency), "--max-per-subset", str(count),
                    "--grace", "0.3"], env=env, check=False, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def judge(run: Path) -> tuple[int, int, float]:
    """(eligible, selected, worst lateness in ms) by export's pacing rule."""
    eligible = worst = 0.0
    selection = json.loads((run / "run.json").read_text())["selection"]
    for sample_id in selection:
        folder = run / "samples" / sample_id
        status = json.loads((folder / "status.json").read_text())
        trace = [json.loads(line) for line in (folder / "trace.jsonl").read_text().splitlines()]
        verdict = Verdict()
        expected = math.ceil(status.get("input_samples", 0) / (status["input_rate"] * 80 // 1000))
        check_pacing([e for e in trace if e["type"] == "append"], expected, verdict)
        worst = max(worst, verdict.pacing["max_start_late_s"], verdict.pacing["max_end_late_s"])
        eligible += status["status"] == "complete" and not verdict.reasons
    return int(eligible), len(selection), worst * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", required=True, help="today's src folder")
    parser.add_argument("--quick", action="store_true",
                        help="concurrency 1 and 8 only, fewer samples")
    parser.add_argument("--busy", type=int, default=2 * (os.cpu_count() or 1))
    parser.add_argument("--nice", type=int, default=10,
                        help="the recording's niceness under the stress")
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    levels = (1, 8) if args.quick else (1, 4, 8, 16)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="capture-pacing-"))
    per_run = {level: max(level, 4) * (1 if args.quick else 2) for level in levels}
    count = max(per_run.values())
    dataset = build(work / "ds", count)
    codes = {"today": args.baseline, "this": THIS_SRC}
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores); "
          f"{count} samples of 2.0-4.2 s; stress = {args.busy} busy processes and the "
          f"recording at nice {args.nice}")
    print(f"{'stress':8} {'conc':>4}  {'code':6} {'eligible':>9} {'worst ms':>9} "
          f"{'wall s':>7} {'load':>5}")
    summary: dict[str, list[float]] = {name: [] for name in codes}
    with agent() as url:
        for stressed in (False, True):
            with busy(args.busy if stressed else 0):
                time.sleep(1.0 if stressed else 0.0)
                for concurrency in levels:
                    for name, src in codes.items():
                        run = work / f"run-{name}-{concurrency}-{int(stressed)}"
                        wall = record(src, dataset, run, url, concurrency,
                                      per_run[concurrency], args.nice if stressed else 0)
                        good, total, worst = judge(run)
                        if stressed:
                            summary[name].append(worst)
                        print(f"{'busy' if stressed else 'alone':8} {concurrency:>4}  "
                              f"{name:6} {good:>4}/{total:<4} {worst:>9.1f} {wall:>7.1f} "
                              f"{os.getloadavg()[0]:>5.2f}", flush=True)
    for name, worsts in summary.items():
        print(f"{name}: worst lateness under stress {max(worsts):.1f} ms "
              f"(target < {TARGET_LATE_MS:g} ms)")


if __name__ == "__main__":
    main()
