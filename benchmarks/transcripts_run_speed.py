"""Speed of ``transcripts run`` with whisper-local on a long recording made here.

Makes the espeak-ng recording of ``tests/transcripts/long_recording.py`` (default one hour,
seed 2026; three voices, overlaps, tone chords, silences), runs ``whisper-local`` on the
``production_complete_file`` track (and, with ``--chunked``, the chunked track), and prints
audio seconds, wall and CPU time and the real-time factors, all measured in this run.

The peer, measured in the same run on the same decoded PCM: plain faster-whisper with the
same model and decoding settings and no VAD filter, so every second is decoded. Both are
also timed in CPU seconds, which other load on a shared machine inflates far less than
wall time, so their ratio holds even when the absolute numbers are measured under load.

Target (issue 12): whisper-local at least 20x real time on 2 cores.

Usage: python benchmarks/transcripts_run_speed.py [--minutes 60] [--threads 2] [--chunked]
       [--no-peer]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "transcripts"))

from long_recording import make_recording, write_run_manifest  # noqa: E402

from speecheval.transcripts.run.chunker import ChunkerSettings  # noqa: E402
from speecheval.transcripts.run.runner import Request, start  # noqa: E402
from speecheval.transcripts.run.tracks import track_dir  # noqa: E402


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def peer(wav: Path, threads: int) -> tuple[float, float]:
    """(wall, CPU) seconds of plain faster-whisper over the whole file, no VAD."""
    from faster_whisper import WhisperModel

    from speecheval.asr.whisper import WhisperSettings, bundled_model_dir
    from speecheval.transcripts.run.input_audio import load

    s = WhisperSettings()
    model = WhisperModel(str(bundled_model_dir()), device="cpu", compute_type=s.compute_type,
                         cpu_threads=threads, num_workers=1)
    samples = load(wav).floats()
    wall, cpu = time.perf_counter(), cpu_seconds()
    segments, _ = model.transcribe(samples, language=s.language, beam_size=s.beam_size,
                                   temperature=s.temperature,
                                   condition_on_previous_text=s.condition_on_previous_text,
                                   word_timestamps=True)
    list(segments)
    return time.perf_counter() - wall, cpu_seconds() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--chunked", action="store_true")
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()
    seconds = args.minutes * 60
    with tempfile.TemporaryDirectory(prefix="speecheval-run-speed-") as scratch:
        folder = Path(scratch)
        made = time.perf_counter()
        make_recording(folder, seconds, 2026)
        print(f"recording: {seconds:.0f} s made in {time.perf_counter() - made:.1f} s "
              f"(seed 2026, script.json beside it)")
        write_run_manifest(folder, args.threads)
        tracks = ["production_complete_file"] + (
            ["production_complete_file/chunked"] if args.chunked else [])
        load = os.getloadavg()[0]
        wall, cpu = time.perf_counter(), cpu_seconds()
        start(Request(folder / "manifest.yaml", ("whisper-local",), tuple(tracks), 1,
                      ChunkerSettings()), folder / "run")
        wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
        for track in tracks:
            meta = json.loads((folder / "run" / "raw" / "whisper-local" /
                               track_dir(track) / "recording" / "r1" /
                               "meta.json").read_text())
            print(f"whisper-local {track}: {meta['status']}, wall {meta['wall_s']:.1f} s, "
                  f"{seconds / meta['wall_s']:.1f}x real time (wall), "
                  f"peak memory {meta['peak_memory_bytes'] / 2**20:.0f} MiB")
        print(f"whole run (decode, {len(tracks)} track(s), derive, lineage): wall {wall:.1f} s, "
              f"CPU {cpu:.1f} s; {seconds * len(tracks) / wall:.1f}x real time (wall), "
              f"{seconds * len(tracks) / cpu:.1f}x per CPU second; load average at start "
              f"{load:.1f} on {os.cpu_count()} cores")
        if not args.no_peer:
            peer_wall, peer_cpu = peer(folder / "run" / "input" / "recording.wav",
                                       args.threads)
            print(f"peer, plain faster-whisper without VAD: wall {peer_wall:.1f} s "
                  f"({seconds / peer_wall:.1f}x real time), CPU {peer_cpu:.1f} s")
            print(f"ratio run / peer (CPU, one track): "
                  f"{cpu / len(tracks) / peer_cpu:.2f}")


if __name__ == "__main__":
    main()
