"""Helpers for the capture tests: short datasets in the official layout, local agents
served on a background thread so the command's own event loop (or a subprocess) can
talk to them over real sockets, and record runs read and edited as a recorder writes
them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from session.helpers import on_own_loop

from speecheval.agents.local import LocalAgentServer
from speecheval.cli import main
from speecheval.core.canonical_json import dumps, dumps_lines
from speecheval.core.hashing import sha256_file
from speecheval.fdb.v10.builder.clips import load_clips
from speecheval.fdb.v10.builder.dataset import write_dataset_sample
from speecheval.fdb.v10.builder.spec import Placement, SampleSpec

Trace = list[dict[str, Any]]
PACING_TOLERANCE_US = 80_000   # the spec's input pacing rule: at most 80 ms late


def short_dataset(root: Path, count: int = 3, duration_s: float = 1.2,
                  subset: str = "icc_backchannel") -> Path:
    """``count`` backchannel samples of ``duration_s`` with "hello" at 0.2 s."""
    clips = load_clips()
    for index in range(1, count + 1):
        write_dataset_sample(SampleSpec(subset=subset, local_id=str(index),
                                        duration_s=duration_s,
                                        placements=(Placement("w_hello", 0.2),)), clips, root)
    return root


@contextmanager
def agent_thread(kind: str = "duplex", protocol: str = "native-realtime",
                 options: dict[str, str] | None = None) -> Iterator[LocalAgentServer]:
    """A LocalAgentServer on a background thread; yields it (``.url``, ``.log``)."""
    with on_own_loop(lambda: LocalAgentServer(kind, protocol, options)) as agent:
        yield agent


@contextmanager
def agent_process(kind: str = "duplex", protocol: str = "native-realtime",
                  options: dict[str, str] | None = None) -> Iterator[str]:
    """A local agent in its own process (its own interpreter lock, as a real server has);
    yields its URL."""
    pairs = [arg for key, value in (options or {}).items() for arg in ("-o", f"{key}={value}")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen([sys.executable, "-m", "speecheval.agents.local", kind,
                                protocol, *pairs], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("ws://"), f"local agent printed {url!r}"
        yield url
    finally:
        process.terminate()
        process.wait(10)


def read_trace(run: Path, sample_id: str) -> Trace:
    """A recorded sample's ``trace.jsonl``, event by event."""
    text = (run / "samples" / sample_id / "trace.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def read_status(run: Path, sample_id: str) -> dict[str, Any]:
    return dict(json.loads((run / "samples" / sample_id / "status.json").read_text()))


def set_status(run: Path, sample_id: str, **fields: Any) -> None:
    path = run / "samples" / sample_id / "status.json"
    path.write_text(dumps({**read_status(run, sample_id), **fields}))


def edit_trace(run: Path, sample_id: str, edit: Callable[[Trace], Trace]) -> None:
    """Rewrite a sample's trace and its hash in status.json, as a recorder would have."""
    path = run / "samples" / sample_id / "trace.jsonl"
    path.write_text(dumps_lines(edit(read_trace(run, sample_id))))
    set_status(run, sample_id, files={**read_status(run, sample_id)["files"],
                                      "trace.jsonl": sha256_file(path)})


def late_appends(trace: Trace) -> list[int]:
    """The packets (``seq``) that started or completed more than 80 ms after their
    deadline, in integer microseconds: what a loaded machine's stall leaves in a run."""
    def late_us(event: dict[str, Any], key: str) -> int:
        return round(event[key] * 1e6) - round(event["deadline_s"] * 1e6)

    return [event["seq"] for event in trace if event["type"] == "append"
            and max(late_us(event, "start_s"), late_us(event, "end_s")) > PACING_TOLERANCE_US]


def send_lateness_s(trace: Trace, before_s: float) -> float:
    """The longest the sender was held past a deadline before ``before_s`` (seconds, 0 if
    never): the agent heard the user that much later than the user's track says, so an
    answer timed on the real clock may come that much later. A delay of the agent's own
    does not show here."""
    return max([0.0, *(event["start_s"] - event["deadline_s"] for event in trace
                       if event["type"] == "append" and event["deadline_s"] < before_s)])


def on_schedule(trace: Trace) -> Trace:
    """The trace as a sender that kept its schedule writes it: each late append (see
    :func:`late_appends`) sent at its deadline. The audio and its receipt times, and so
    the playout, stay as recorded."""
    late = set(late_appends(trace))
    for event in trace:
        if event["type"] == "append" and event["seq"] in late:
            event["start_s"] = event["end_s"] = event["deadline_s"]
    return trace


def on_agent_clock(trace: Trace) -> Trace:
    """The trace as a receiver that kept up writes it: each audio chunk that arrived more
    than 80 ms after its place in the agent's own stream (its offset at the output rate:
    a full-duplex agent speaks one sample per sample heard, from the session's start)
    received at that place. What the agent said, and when in its own audio time, stays
    as recorded."""
    rate = next(int(e["output_rate"]) for e in trace if e["type"] == "header")
    for event in trace:
        if event["type"] == "audio" and round(event["t_s"] * 1e6) \
                - round(event["offset"] * 1e6 / rate) > PACING_TOLERANCE_US:
            event["t_s"] = round(event["offset"] / rate, 6)
    return trace


def playout_delay_s(trace: Trace, at_s: float) -> float:
    """How much later than its place in the agent's own audio stream the received audio
    playing at ``at_s`` plays (seconds): its chunk's start in a first-in-first-out
    playout at receipt time, worked out here from the trace, less the chunk's offset in
    the stream. A full-duplex agent speaks one sample per sample heard, so this is the
    delay that scheduling (a stalled sender or receiver) added in this run; 0 where
    nothing plays at ``at_s``."""
    rate = next(int(e["output_rate"]) for e in trace if e["type"] == "header")
    cursor = 0
    for event in (e for e in trace if e["type"] == "audio"):
        start = max(round(event["t_s"] * rate), cursor)
        cursor = start + event["samples"]
        if start <= at_s * rate < cursor:
            return (start - event["offset"]) / rate
    return 0.0


def export_on_schedule(run: Path, dataset: Path, tree: Path) -> Path:
    """``reference-export`` of a real-clock run, for tests that score what the agent did.

    Each sample's reasons are checked against the trace first: ``input_pacing`` exactly
    where a stall held the sender past 80 ms (:func:`late_appends`), nothing else. If any
    sample was held, the machine stalled this run: the late appends are sent on schedule
    (:func:`on_schedule`), the audio that the stall made late is received where the
    agent's own clock put it (:func:`on_agent_clock`; for a full-duplex stream, as the
    native-realtime agents send), and the run is exported again beside ``tree``, so that
    every sample is scored, as the agent behaved, on any machine. Returns the tree to
    score."""
    assert main(["fdb10", "reference-export", "--run", str(run), "--dataset-root",
                 str(dataset), "--out", str(tree)]) == 0
    samples = json.loads((tree / "manifest.json").read_text())["samples"]
    for entry in samples:
        late = late_appends(read_trace(run, entry["sample_id"]))
        assert entry["reasons"] == (["input_pacing"] if late else []), (entry, late)
    if all(entry["eligible"] for entry in samples):
        return tree
    for entry in samples:
        edit_trace(run, entry["sample_id"], lambda trace: on_agent_clock(on_schedule(trace)))
    tree = tree.with_name(f"{tree.name}-on-schedule")
    assert main(["fdb10", "reference-export", "--run", str(run), "--dataset-root",
                 str(dataset), "--out", str(tree)]) == 0
    return tree
