"""What running on Ray costs against local worker processes, per command and per work item.

Starts one private Ray cluster in this process (2 CPUs on 127.0.0.1, a small object
store; its start-up time is printed on its own and charged to no command), then times,
with 2 workers each, ``local`` (``LocalExecutor(2)``, what ``--jobs 2`` runs) against
``ray`` (``RayExecutor`` on that cluster) on:

- an empty work item (``abs``) over ``--items`` items: the seam's own cost per item;
- ``reference-asr`` with the bundled Whisper on the mini tree (each run transcribes a
  fresh untranscribed copy);
- ``unified-score`` cold (no VAD cache, every file through Silero) on a tree built by
  the tree builder: the 727-sample full-size tree with ``--scale full`` (the default),
  the 14-sample mini tree with ``--scale mini``;
- ``fdb10 record``: ``--sessions`` sessions of 1 s against the local duplex agent in its
  own process over real sockets, one session per work item on its own event loop. The
  sessions run on the real clock, so the item costs about 1 s + grace whatever runs it;
  the overhead per item is what remains. Also printed: each node's pacing, the largest
  lateness of a packet behind its absolute deadline, from the traces. The comparison is
  of the input sent and the send schedule (a live recording is not deterministic). A
  2-session run on each executor first warms Ray's workers (their imports).

For each: wall seconds of both, the ratio ray/local (issue 13's target: within 1.3x), and
the overhead per work item, (ray - local) / items. Both outputs are compared byte for
byte. On a shared machine the times are "under load": the load average is printed at
the start, and the ratio (both measured in the same run, one after the other) is the
number to read.

Usage: python benchmarks/executor_overhead.py [--scale full|mini] [--items 400]
       [--sessions 8] [--parts empty,asr,unified,record]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from speecheval.core.executor import Executor, LocalExecutor, RayExecutor
from speecheval.fdb.common.capture import CaptureSettings
from speecheval.fdb.common.dataset import load_dataset
from speecheval.fdb.common.record import RecordRequest, start_run
from speecheval.fdb.common.reference_asr import reference_asr
from speecheval.fdb.v10.builder.clips import load_clips
from speecheval.fdb.v10.builder.dataset import write_dataset_sample
from speecheval.fdb.v10.builder.spec import Placement, SampleSpec
from speecheval.fdb.v10.builder.trees import build_mini_tree, build_scale_tree
from speecheval.fdb.v10.report.unified_files import write_unified
from speecheval.fdb.v10.scoring.unified import score_tree

TARGET_RATIO = 1.3


def timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def report(label: str, items: int, local_s: float, ray_s: float, same: bool) -> None:
    ratio = ray_s / local_s
    per_item_ms = (ray_s - local_s) / items * 1000
    verdict = "within" if ratio <= TARGET_RATIO else "over"
    print(f"{label}: {items} items; local --jobs 2 {local_s:.2f} s, ray 2 workers "
          f"{ray_s:.2f} s; ratio ray/local {ratio:.2f} ({verdict} {TARGET_RATIO}x); "
          f"overhead {per_item_ms:+.1f} ms per item; same output: {same}")


def untranscribed(tree: Path, to: Path) -> Path:
    """A copy of ``tree`` without asr.json and output.json, as reference-asr wants it."""
    shutil.copytree(tree, to)
    (to / "asr.json").unlink()
    for path in to.glob("*/*/output.json"):
        path.unlink()
    return to


def outputs(tree: Path) -> dict[str, bytes]:
    return {p.relative_to(tree).as_posix(): p.read_bytes()
            for p in sorted(tree.glob("*/*/output.json"))} | {
        "asr.json": (tree / "asr.json").read_bytes()}


def bench_empty(executors: dict[str, Executor], items: int) -> None:
    values = list(range(-items, 0))
    seconds, results = {}, {}
    for name, executor in executors.items():
        started = time.perf_counter()
        results[name] = [r.get() for r in executor.map(abs, values)]
        seconds[name] = time.perf_counter() - started
    report("empty items (abs)", items, seconds["local"], seconds["ray"],
           results["local"] == results["ray"])


def bench_reference_asr(executors: dict[str, Executor], workdir: Path) -> None:
    mini = workdir / "mini"
    build_mini_tree(mini)
    seconds, written = {}, {}
    for name, executor in executors.items():
        tree = untranscribed(mini, workdir / f"asr-{name}")
        seconds[name] = timed(lambda t=tree, e=executor: reference_asr(t, executor=e))
        written[name] = outputs(tree)
    report("reference-asr (Whisper tiny.en, mini tree)", len(written["local"]) - 1,
           seconds["local"], seconds["ray"], written["local"] == written["ray"])


def bench_unified_score(executors: dict[str, Executor], workdir: Path, scale: str) -> None:
    tree = workdir / "scale"
    started = time.perf_counter()
    built = build_scale_tree(tree, seed=0) if scale == "full" else build_mini_tree(tree)
    print(f"built the {len(built)}-sample tree in {time.perf_counter() - started:.1f} s")
    seconds, rows = {}, {}
    for name, executor in executors.items():
        out = workdir / f"unified-{name}"

        def run(e: Executor = executor, o: Path = out) -> None:
            write_unified(score_tree(tree, workers=2, command=["benchmark"], executor=e), o)

        seconds[name] = timed(run)
        rows[name] = (out / "unified-samples.jsonl").read_bytes()
    report(f"unified-score cold ({scale} tree, Silero per sample)", len(built),
           seconds["local"], seconds["ray"], rows["local"] == rows["ray"])


def _sessions(run: Path) -> dict[str, tuple[bytes, list[tuple[int, float, int]]]]:
    """Each session's input and send schedule: what must not depend on where it ran."""
    found = {}
    for folder in sorted(p.parent for p in (run / "samples").rglob("trace.jsonl")):
        trace = [json.loads(line) for line in (folder / "trace.jsonl").open()]
        found[folder.name] = ((folder / "input.wav").read_bytes(),
                              [(e["seq"], e["deadline_s"], e["samples"]) for e in trace
                               if e["type"] == "append"])
    return found


def _pacing(run: Path) -> str:
    """The largest lateness of a packet's send behind its deadline, per node."""
    late: dict[str, float] = {}
    for path in (run / "samples").rglob("trace.jsonl"):
        trace = [json.loads(line) for line in path.open()]
        node = str(trace[0].get("node"))
        worst = max(e["start_s"] - e["deadline_s"] for e in trace if e["type"] == "append")
        late[node] = max(late.get(node, 0.0), worst)
    return ", ".join(f"{node} {seconds * 1000:.1f} ms" for node, seconds in sorted(late.items()))


def bench_record(executors: dict[str, Executor], workdir: Path, sessions: int) -> None:
    dataset = workdir / "record-ds"
    clips = load_clips()
    for index in range(1, sessions + 1):
        write_dataset_sample(SampleSpec(subset="icc_backchannel", local_id=str(index),
                                        duration_s=1.0,
                                        placements=(Placement("w_hello", 0.2),)), clips, dataset)
    loaded = load_dataset(dataset)
    ids = tuple(s.sample_id for s in loaded.samples)
    agent = subprocess.Popen([sys.executable, "-m", "speecheval.agents.local", "duplex",
                              "native-realtime"], stdout=subprocess.PIPE, text=True)
    try:
        assert agent.stdout is not None
        url = agent.stdout.readline().strip()
        request = RecordRequest(dataset_root=dataset, agent="native-realtime",
                                options={"url": url}, sample_ids=ids,
                                settings=CaptureSettings(grace_s=0.3, timeout_s=5.0))
        seconds, found = {}, {}
        for name, executor in executors.items():
            # first a 2-session run: Ray's workers import the capture modules once, as
            # the forked pool's workers inherit them from this process
            start_run(workdir / f"record-warm-{name}", replace(request, sample_ids=ids[:2]),
                      loaded, executor)
            run = workdir / f"record-{name}"
            seconds[name] = timed(lambda r=run, e=executor: start_run(r, request, loaded, e))
            found[name] = _sessions(run)
            print(f"  record pacing on {name}, worst lateness per node: {_pacing(run)}")
    finally:
        agent.terminate()
        agent.wait(10)
    report(f"fdb10 record ({sessions} live sessions of 1 s + 0.3 s grace)", sessions,
           seconds["local"], seconds["ray"], found["local"] == found["ray"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=["full", "mini"], default="full")
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--parts", default="empty,asr,unified,record",
                        help="Which measurements, comma-separated.")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    import ray

    print(f"ray {ray.__version__}; load average at start {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores (measured under load when it is above the core count)")
    started = time.perf_counter()
    ray.init(num_cpus=2, object_store_memory=80_000_000, include_dashboard=False,
             _node_ip_address="127.0.0.1", log_to_driver=False, logging_level="WARNING")
    print(f"Ray cluster started in {time.perf_counter() - started:.1f} s (not charged)")
    executors: dict[str, Executor] = {"local": LocalExecutor(2), "ray": RayExecutor()}
    try:
        # warm the Ray workers (interpreter and imports) as a pool's first use warms its own
        RayExecutor().map(abs, [-1, -2])
        with tempfile.TemporaryDirectory() as workdir:
            if "empty" in parts:
                bench_empty(executors, args.items)
            if "asr" in parts:
                bench_reference_asr(executors, Path(workdir))
            if "unified" in parts:
                bench_unified_score(executors, Path(workdir), args.scale)
            if "record" in parts:
                bench_record(executors, Path(workdir), args.sessions)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
