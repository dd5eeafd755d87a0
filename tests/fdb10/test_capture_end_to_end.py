"""The capture pipeline end to end: build-dataset -> record the local duplex agent over
real sockets -> reference-export -> unified-score, and the agent's designed behaviour in
the metrics.

The local duplex agent (``agents.local``, energy endpointing) starts a reply after 300 ms
of silence plus 200 ms, whatever the user is doing; the built pauses are 0.8-2 s long, so
it talks in every pause, and it answers every end of turn about 0.5 s after E.

``reference-asr`` (Parakeet) is another command's job; to score the tree here each Silero
speech segment of output.wav is written as one "word" at the segment's start and end, and
asr.json names that transcriber for what it is.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from speecheval.cli import main
from speecheval.core.audio import read_mono
from speecheval.core.canonical_json import dumps
from speecheval.core.hashing import sha256_file
from speecheval.fdb.v10.builder.dataset import build_dataset
from speecheval.vad.silero import SileroVad

from .capturekit import (
    agent_process,
    export_on_schedule,
    playout_delay_s,
    read_trace,
    send_lateness_s,
)

SUBSETS = ("synthetic_pause_handling", "candor_turn_taking")


def _segment_words(tree: Path) -> None:
    """output.json from Silero segments (one word each) and asr.json over them."""
    vad = SileroVad()
    manifest = json.loads((tree / "manifest.json").read_text())
    transcripts = {}
    for entry in manifest["samples"]:
        if "output.wav" not in entry["files"]:
            continue
        spans = vad.segments(read_mono(tree / entry["sample_id"] / "output.wav"))
        chunks = [{"text": "speech", "timestamp": [s.start_us / 1e6, s.end_us / 1e6]}
                  for s in spans]
        path = tree / entry["sample_id"] / "output.json"
        path.write_text(json.dumps({"text": " ".join(c["text"] for c in chunks),
                                    "chunks": chunks}))
        transcripts[entry["sample_id"]] = sha256_file(path)
    (tree / "asr.json").write_text(dumps({
        "kind": "fdb-v1.0-reference-asr", "schema_version": 1,
        "asr": {"name": "test-silero-segments", "kind": "one word per speech segment"},
        "transcripts": transcripts}))


def test_dataset_record_export_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    dataset = tmp_path / "ds"
    build_dataset(dataset, "mini")
    run, tree = tmp_path / "run", tmp_path / "tree"
    with agent_process() as url:
        subsets = [arg for subset in SUBSETS for arg in ("--subset", subset)]
        assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                     "native-realtime", "-o", f"url={url}", "--out", str(run),
                     *subsets, "--max-per-subset", "4", "--concurrency", "8",
                     "--grace", "0.5"]) == 0
    # the sender's stalls make samples ineligible exactly where the trace shows them;
    # the agent's behaviour is then scored on every sample, sent on schedule
    tree = export_on_schedule(run, dataset, tree)
    manifest = json.loads((tree / "manifest.json").read_text())
    assert len(manifest["samples"]) == 8
    # the 48 kHz pause inputs went out at 48 kHz and came back at 48 kHz: soxr to 16 kHz
    pause = next(e for e in manifest["samples"] if e["subset"] == SUBSETS[0])
    assert pause["playout"]["resampler"]["name"] == "soxr"
    _segment_words(tree)
    capsys.readouterr()
    assert main(["fdb10", "unified-score", "--tree", str(tree), "--jobs", "1"]) == 0
    unified = json.loads((tree / "unified" / "unified.json").read_text())
    rows = [json.loads(line) for line in
            (tree / "unified" / "unified-samples.jsonl").read_text().splitlines()]
    assert len(rows) == 8 and all(r["eligible"] for r in rows)
    pause_rows = [r for r in rows if r["subset"] == SUBSETS[0]]
    assert len(pause_rows) == 4 and all(r["pause_intrusion"] for r in pause_rows)
    rate = unified["subsets"][SUBSETS[0]]["metrics"]["pause_intrusion_rate"]
    assert (rate["count"], rate["n"], rate["value"]) == (4, 4, 1.0)
    turn_rows = [r for r in rows if r["subset"] == SUBSETS[1]]
    assert len(turn_rows) == 4 and all(r["outcome"] == "response" for r in turn_rows)
    # 300 ms endpoint + 200 ms delay, plus chunking and Silero's 32 ms windows, in the
    # agent's own audio time: the reply plays later than that by the delay the run
    # measured for the chunk it starts in (a stalled sender makes the agent hear E late,
    # a stalled receiver takes its chunks late; the playout queues after either)
    for row in turn_rows:
        delay_s = playout_delay_s(read_trace(run, row["sample_id"]), row["first_word_s"])
        assert 0.4 <= row["latency_s"] <= 1.0 + delay_s, (row, delay_s)


LONG_REPLY = ("one good choice is a classic novel about growing up in a small town, and "
              "there are many ways to learn a new language with daily practice")


def test_turn_based_barge_in_drops_the_queued_reply(tmp_path: Path) -> None:
    """The OpenAI-protocol turn agent sends a whole reply at once; when the interruption
    starts it reports speech_started, and the playout drops what was still queued."""
    dataset = tmp_path / "ds"
    build_dataset(dataset, "mini")
    run, tree = tmp_path / "run", tmp_path / "tree"
    with agent_process("turn", "openai-realtime", {"reply_text": LONG_REPLY}) as url:
        assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                     "openai-realtime", "-o", f"url={url}", "-o", "api_key_env=",
                     "-o", "transcription_model=", "--out", str(run),
                     "--subset", "synthetic_user_interruption", "--max-per-subset", "2",
                     "--concurrency", "2", "--grace", "0.3"]) == 0
    assert main(["fdb10", "reference-export", "--run", str(run), "--dataset-root",
                 str(dataset), "--out", str(tree)]) == 0
    manifest = json.loads((tree / "manifest.json").read_text())
    for entry in manifest["samples"]:
        sample_id = entry["sample_id"]
        trace = read_trace(run, sample_id)
        (annotation,) = json.loads((dataset / sample_id / "interrupt.json").read_text())
        onset = annotation["timestamp"][0]
        # server VAD reports every user turn: the question (nothing queued yet) and the
        # interruption, which the agent hears for 100 ms (barge_in_min_ms) before saying
        # so; on the real clock, later by as long as this run held the sender
        started = [e["t_s"] for e in trace if e["type"] == "speech_started"]
        assert len(started) == 2 and started[0] < 1.0 + send_lateness_s(trace, 1.0), started
        barge_in = started[1]
        assert onset < barge_in < onset + 0.5 + send_lateness_s(trace, onset + 0.5), (
            onset, barge_in)
        assert entry["playout"]["dropped_s"] > 1.0   # most of a ~7 s reply was queued
        output = read_mono(tree / sample_id / "output.wav").samples
        start = round(barge_in * 16_000)
        assert np.abs(output[start - 8000:start]).max() > 0.05   # it was speaking
        assert np.abs(output[start + 1:start + 16_000]).max() < 1e-3   # then nothing plays
