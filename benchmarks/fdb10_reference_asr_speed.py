"""Speed of ``fdb10 reference-asr`` with the whisper backend.

Builds a tree with the tree builder (the 48-sample mini tree, or with ``--scale full`` the
727-sample one), removes its placement transcripts, transcribes it with Whisper tiny.en
and prints the audio seconds transcribed (interruption samples from R on), the wall and
CPU time, and the real-time factors, all measured in this run.

The peer, measured in the same run on the same cut tracks: plain faster-whisper (the
same model and decoding settings, one thread, no VAD filter, so every track is decoded
whole). Both are timed in CPU seconds, which other load on a shared machine inflates far
less than wall time, so their ratio says what the speech-region guard costs or saves
even when the absolute numbers are measured under load.

Target (issue 8): at least 20x real time over a tree on a 2-core machine.

Usage: python benchmarks/fdb10_reference_asr_speed.py [--scale mini|full] [--jobs N]
       [--no-peer]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from speecheval.asr.base import SAMPLE_RATE
from speecheval.core.audio import audio_info, read_mono, resample
from speecheval.core.executor import LocalExecutor, default_jobs
from speecheval.fdb.common.reference_asr import AsrJob, plan_jobs, reference_asr
from speecheval.fdb.v10.builder.trees import build_mini_tree, build_scale_tree


def cpu_seconds() -> float:
    """User and system time of this process and its finished worker processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def plain_faster_whisper_cpu_s(jobs: list[AsrJob]) -> float:
    """CPU seconds of plain faster-whisper over the same cut tracks, in this process."""
    from dataclasses import asdict

    from faster_whisper import WhisperModel

    from speecheval.asr.whisper import WhisperSettings, bundled_model_dir

    s = WhisperSettings()
    model = WhisperModel(str(bundled_model_dir()), device=s.device,
                         compute_type=s.compute_type, cpu_threads=s.cpu_threads)
    decoding = {k: v for k, v in asdict(s).items()
                if k not in ("vad", "compute_type", "device", "cpu_threads")}
    started = time.process_time()
    for job in jobs:
        audio = read_mono(job.wav)
        cut = resample(audio.samples[int(job.offset_s * audio.rate):], audio.rate, SAMPLE_RATE)
        segments, _ = model.transcribe(cut, vad_filter=False, **decoding)
        list(segments)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=["mini", "full"], default="mini")
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument("--no-peer", action="store_true",
                        help="leave out the plain faster-whisper peer")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        tree = Path(workdir) / "tree"
        if args.scale == "mini":
            build_mini_tree(tree)
        else:
            build_scale_tree(tree, seed=0)
        (tree / "asr.json").unlink()
        for path in tree.glob("*/*/output.json"):
            path.unlink()
        audio_s = 0.0
        for job in plan_jobs(tree):
            info = audio_info(job.wav)
            audio_s += info.n_samples / info.rate - job.offset_s
        jobs = plan_jobs(tree)
        cpu_before, started = cpu_seconds(), time.perf_counter()
        run = reference_asr(tree, executor=LocalExecutor(args.jobs))
        wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu_before
        peer = None if args.no_peer else plain_faster_whisper_cpu_s(jobs)
    print(f"{len(run.transcripts)} samples, {audio_s:.1f} s of audio transcribed, "
          f"{args.jobs} worker(s), load average {os.getloadavg()[0]:.1f}")
    print(f"wall {wall:.1f} s ({audio_s / wall:.1f}x real time), CPU {cpu:.1f} s "
          f"({audio_s / cpu:.1f}x real time per core)")
    if peer is not None:
        print(f"peer, plain faster-whisper without the VAD filter, one process: CPU "
              f"{peer:.1f} s ({audio_s / peer:.1f}x real time per core); "
              f"ours / peer speed: {peer / cpu:.2f}x")


if __name__ == "__main__":
    main()
