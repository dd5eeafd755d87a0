"""Speed of the FDB v1.0 capture: record's send schedule and reference-export's throughput.

Targets (issue 7), printed as ratios from one run:

* ``record``: 16 concurrent sessions against the local duplex agent (its own process,
  native-realtime) on the 2-core machine, p99 send lateness under 5 ms. Lateness is
  ``start_s - deadline_s`` of every append receipt. Beside it: the lateness of bare
  timers on the same 16 schedules in the same loop with no sockets, what the machine
  allows at that moment.
* ``reference-export`` of a 727-sample run in under 30 s. The run is synthetic (a trace
  generator, not sessions): the full-size built dataset, and for each sample an 80 ms
  append schedule and agent audio at 24 kHz received every 80 ms (so every sample is
  resampled with soxr), written in the record run layout.

    PYTHONPATH=src .venv/bin/python benchmarks/fdb10_capture_speed.py [--sessions 16]
        [--seconds 10] [--skip-record] [--skip-export] [--work DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from speecheval.agents.registry import open_transport
from speecheval.core.audio import encode_wav
from speecheval.core.canonical_json import dumps, dumps_lines
from speecheval.core.hashing import sha256_bytes
from speecheval.fdb.common.capture import CaptureSettings, capture_session
from speecheval.fdb.common.dataset import load_dataset
from speecheval.fdb.common.export import export_tree
from speecheval.fdb.v10.builder.dataset import build_dataset

RATE = 16_000
TARGET_P99_MS = 5.0
TARGET_EXPORT_S = 30.0
AGENT_RATE = 24_000


async def bare_timers(sessions: int, seconds: float) -> NDArray[np.float64]:
    """Lateness of sleeping to ``t0 + i * 80 ms``, as the capture does, with no work."""
    loop = asyncio.get_running_loop()
    out: list[float] = []

    async def one() -> None:
        t0 = loop.time()
        for index in range(int(seconds / 0.08)):
            deadline = t0 + index * 0.08
            delay = deadline - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            out.append((loop.time() - deadline) * 1000)

    await asyncio.gather(*(one() for _ in range(sessions)))
    return np.asarray(out)


async def sessions_lateness(url: str, sessions: int, seconds: float) -> NDArray[np.float64]:
    """Send lateness of every append of ``sessions`` concurrent captures."""
    rng = np.random.default_rng(0)
    speech = (rng.standard_normal(int(seconds * RATE)) * 3000).astype("<i2")
    speech[::3 * RATE] = 0
    pcm = speech.tobytes()
    settings = CaptureSettings(grace_s=0.2)
    captures = await asyncio.gather(*(
        capture_session(open_transport("native-realtime", {"url": url}), pcm, RATE, seconds,
                        settings) for _ in range(sessions)))
    late = [(e["start_s"] - e["deadline_s"]) * 1000 for c in captures for e in c.trace
            if e["type"] == "append"]
    faults = [f for c in captures for f in c.faults]
    if faults:
        print(f"  faults: {faults[:3]}")
    return np.asarray(late)


def bench_record(sessions: int, seconds: float) -> None:
    agent = subprocess.Popen([sys.executable, "-m", "speecheval.agents.local", "duplex",
                              "native-realtime"], stdout=subprocess.PIPE, text=True)
    try:
        assert agent.stdout is not None
        url = agent.stdout.readline().strip()
        floor = asyncio.run(bare_timers(sessions, seconds))
        late = asyncio.run(sessions_lateness(url, sessions, seconds))
    finally:
        agent.terminate()
        agent.wait(10)
    p99 = float(np.percentile(late, 99))
    print(f"record: {sessions} sessions x {seconds:g} s, {late.size} appends")
    print(f"  send lateness  p50 {np.percentile(late, 50):.2f} ms  p99 {p99:.2f} ms  "
          f"max {late.max():.2f} ms")
    print(f"  bare timers    p50 {np.percentile(floor, 50):.2f} ms  "
          f"p99 {np.percentile(floor, 99):.2f} ms  max {floor.max():.2f} ms")
    verdict = "met" if p99 < TARGET_P99_MS else "MISSED"
    print(f"  p99 / target {p99 / TARGET_P99_MS:.2f} ({verdict})")


def synthetic_run(dataset_root: Path, run: Path) -> None:
    """A complete record run of every usable sample, from a trace generator."""
    dataset = load_dataset(dataset_root)
    samples = [s for s in dataset.samples if s.usable]
    (run / "samples").mkdir(parents=True)
    rng = np.random.default_rng(0)
    for sample in samples:
        assert sample.input_rate is not None and sample.input_samples is not None
        duration = sample.duration_s
        packets = -(-sample.input_samples // (sample.input_rate * 80 // 1000))
        trace: list[dict[str, object]] = [{"type": "header", "sample_id": sample.sample_id,
                                           "rate": sample.input_rate,
                                           "output_rate": AGENT_RATE, "packet_ms": 80,
                                           "duration_s": duration, "t0_monotonic": 0.0}]
        chunk = AGENT_RATE * 80 // 1000
        for seq in range(packets):
            t = round(seq * 0.08 + 0.001, 6)
            trace.append({"type": "append", "seq": seq, "deadline_s": round(seq * 0.08, 6),
                          "start_s": t, "end_s": round(t + 0.0002, 6), "samples": 0,
                          "t_s": t})
            trace.append({"type": "audio", "t_s": round(t + 0.01, 6), "offset": seq * chunk,
                          "samples": chunk})
        received = (rng.standard_normal(packets * chunk) * 2000).astype(np.int16)
        files = {"received.wav": encode_wav(received, AGENT_RATE),
                 "trace.jsonl": dumps_lines(trace).encode()}
        status = {"sample_id": sample.sample_id, "subset": sample.subset,
                  "task": sample.task, "status": "complete", "reasons": [],
                  "dataset_files": sample.files, "input_rate": sample.input_rate,
                  "output_rate": AGENT_RATE, "duration_s": duration,
                  "input_samples": sample.input_samples,
                  "received_samples": int(received.size),
                  "files": {name: sha256_bytes(data) for name, data in files.items()}}
        folder = run / "samples" / sample.sample_id
        folder.mkdir(parents=True)
        for name, data in files.items():
            (folder / name).write_bytes(data)
        (folder / "status.json").write_text(dumps(status))
    (run / "run.json").write_text(dumps({
        "kind": "speecheval-fdb10-run", "schema_version": 1, "status": "complete",
        "agent": {"name": "synthetic", "options": {}, "transport": {}},
        "server": {"revision": None, "model": None, "probe": {}},
        "dataset": {"revision": dataset.revision, "label": None},
        "selection": [s.sample_id for s in samples],
        "settings": {"packet_ms": 80, "grace_s": 0.0, "timeout_s": 0.0, "concurrency": 1}}))


def bench_export(work: Path) -> None:
    dataset = work / "dataset"
    started = time.perf_counter()
    build_dataset(dataset, "full")
    built = time.perf_counter() - started
    run = work / "run"
    started = time.perf_counter()
    synthetic_run(dataset, run)
    generated = time.perf_counter() - started
    started = time.perf_counter()
    counts = export_tree([run], dataset, work / "tree")
    elapsed = time.perf_counter() - started
    print(f"reference-export: {counts['samples']} samples ({counts['eligible']} eligible) "
          f"in {elapsed:.1f} s (dataset built in {built:.1f} s, run generated in "
          f"{generated:.1f} s)")
    print(f"  time / target {elapsed / TARGET_EXPORT_S:.2f} "
          f"({'met' if elapsed < TARGET_EXPORT_S else 'MISSED'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--skip-record", action="store_true")
    parser.add_argument("--skip-export", action="store_true")
    parser.add_argument("--work", type=Path, default=None,
                        help="Folder for the export benchmark's files [default: a temp dir].")
    args = parser.parse_args()
    if not args.skip_record:
        bench_record(args.sessions, args.seconds)
    if not args.skip_export:
        work = args.work or Path(tempfile.mkdtemp(prefix="fdb10-capture-speed-"))
        try:
            bench_export(work)
        finally:
            if args.work is None:
                shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
