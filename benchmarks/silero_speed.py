"""How fast speecheval's Silero path runs against silero-vad's own paths, on one core.

Builds a deterministic stretch of mixed audio (espeak-ng sentences with pauses of 50 ms to
1.5 s, noise, tones, silence) from the committed test sentences, and times, in one run:

- ``speecheval 16k``: ``SileroVad.segments`` on 16 kHz audio (the batched matrix-product
  path, ``vad/silero_batched.py``);
- ``speecheval 24k``: the same audio at 24 kHz, which is resampled to 16 kHz first;
- ``speecheval 8k``: the same audio at 8 kHz (streaming model, one call per window);
- ``speecheval 16k simple``: the 16 kHz audio through the streaming model, one call per
  window (the path 16 kHz would take without ``silero_batched``: what the batched path
  has to beat to stay);
- ``package sequence``: ``get_speech_timestamps_sequence`` with
  ``load_silero_vad(sequence=True)``, silero-vad's fastest path (the peer of issue 15);
- ``package onnx``: ``get_speech_timestamps`` with ``load_silero_vad(onnx=True)``;
- ``package jit``: ``get_speech_timestamps`` with ``load_silero_vad()`` (TorchScript) and
  ``torch.set_num_threads(1)``, the reference the FDB v1.0 spec names.

The package rows need torch (``import silero_vad`` loads it) and are left out, with a
message, without it. Real-time factors are audio seconds over CPU seconds of this process
(every path runs on one thread, so CPU time is the per-core cost and is not inflated by
other load on a shared machine); wall seconds are printed too, and every factor is also
given as a ratio to the package's sequence path measured in the same run. Run from the
repository root::

    .venv/bin/python benchmarks/silero_speed.py [--minutes 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from speecheval.core.audio import Audio, read_mono, resample
from speecheval.vad.silero import SileroSettings, SileroVad
from speecheval.vad.silero_model import SileroOnnx, locate_model_files
from speecheval.vad.silero_segments import speech_segments

Segments = list[tuple[int, int]]  # (start, end) in microseconds
RATE = 16_000
SENTENCES = Path(__file__).resolve().parents[1] / "tests" / "data" / "vad"
TARGET_RATIO = 1.5


def mixed_audio(minutes: float, seed: int = 0) -> NDArray[np.float32]:
    """Speech with varied pauses, plus noise, tones and silence, ``minutes`` long at 16 kHz."""
    rng = np.random.default_rng(seed)
    sentences = [read_mono(path).samples for path in sorted(SENTENCES.glob("speech_*.wav"))]
    total = round(minutes * 60 * RATE)
    parts: list[NDArray[np.float32]] = []
    length = 0
    while length < total:
        kind = rng.choice(["speech", "speech", "speech", "noise", "tone", "silence"])
        if kind == "speech":
            part = sentences[int(rng.integers(len(sentences)))] * rng.uniform(0.3, 1.0)
        elif kind == "noise":
            part = rng.standard_normal(int(rng.integers(RATE // 2, 3 * RATE))) * 0.03
        elif kind == "tone":
            t = np.arange(int(rng.integers(RATE // 2, 2 * RATE))) / RATE
            part = 0.3 * np.sin(2 * np.pi * rng.uniform(150, 2000) * t)
        else:
            part = np.zeros(int(rng.integers(RATE // 2, 4 * RATE)))
        pause = np.zeros(int(rng.uniform(0.05, 1.5) * RATE))
        parts += [part.astype(np.float32), pause.astype(np.float32)]
        length += part.size + pause.size
    return np.concatenate(parts)[:total]


def timed(run: Callable[[], Segments], repeat: int) -> tuple[float, float, Segments]:
    """Best CPU and wall seconds over ``repeat`` runs, and the last result."""
    best_cpu = best_wall = float("inf")
    result: Segments = []
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        result = run()
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return best_cpu, best_wall, result


def simple_path(samples: NDArray[np.float32]) -> Callable[[], Segments]:
    """The 16 kHz audio through the streaming model alone (no batched graph), segmented by
    the same state machine: the simple path the batched one replaces."""
    model = SileroOnnx(locate_model_files())
    rule = SileroSettings().rule(RATE)

    def run() -> Segments:
        found = speech_segments(model.streaming_probabilities(samples, RATE), rule,
                                samples.size)
        return [(start * 125 // 2, end * 125 // 2) for start, end in found]
    return run


def package_paths(samples: NDArray[np.float32]) -> dict[str, Callable[[], Segments]]:
    """silero-vad's own sequence, ONNX and JIT paths at 16 kHz (empty without torch)."""
    if importlib.util.find_spec("torch") is None:
        return {}
    import torch
    from silero_vad import (  # type: ignore[import-untyped]
        get_speech_timestamps,
        get_speech_timestamps_sequence,
        load_silero_vad,
    )

    torch.set_num_threads(1)
    settings = {"threshold": 0.5, "min_speech_duration_ms": 250,
                "min_silence_duration_ms": 100, "speech_pad_ms": 0}
    tensor = torch.from_numpy(samples)

    def as_us(found: list[dict[str, int]]) -> Segments:
        # sample index at 16 kHz = 62.5 us; the end of open speech is the file's end
        return [(item["start"] * 125 // 2, min(item["end"], samples.size) * 125 // 2)
                for item in found]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sequence = load_silero_vad(sequence=True)
        onnx = load_silero_vad(onnx=True)
        jit = load_silero_vad()
    return {
        "package sequence": lambda: as_us(get_speech_timestamps_sequence(
            samples, sequence, **settings)),
        "package onnx": lambda: as_us(get_speech_timestamps(tensor, onnx, **settings)),
        "package jit": lambda: as_us(get_speech_timestamps(tensor, jit, **settings)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of the fast paths; the best is kept (slow paths run once)")
    args = parser.parse_args()

    samples = mixed_audio(args.minutes)
    seconds = samples.size / RATE
    vad = SileroVad()
    at16 = Audio(samples, RATE)
    at24 = Audio(resample(samples, RATE, 24_000), 24_000)
    at8 = Audio(resample(samples, RATE, 8_000), 8_000)

    def ours(audio: Audio) -> Callable[[], Segments]:
        return lambda: [(s.start_us, s.end_us) for s in vad.segments(audio)]

    runs: list[tuple[str, Callable[[], Segments], int]] = [
        ("speecheval 16k", ours(at16), args.repeat),
        ("speecheval 24k", ours(at24), args.repeat),
        ("speecheval 8k", ours(at8), 1),
        ("speecheval 16k simple", simple_path(samples), 1)]
    peers = package_paths(samples)
    runs += [(name, run, args.repeat if name == "package sequence" else 1)
             for name, run in peers.items()]
    rows: list[tuple[str, float, float]] = []
    results: dict[str, Segments] = {}
    for name, run, repeat in runs:
        cpu, wall, results[name] = timed(run, repeat)
        rows.append((name, cpu, wall))

    print(f"audio: {seconds:.0f} s of mixed speech, noise, tones and silence; "
          f"{len(results['speecheval 16k'])} speech segments at 16 kHz")
    peer = dict((name, cpu) for name, cpu, _ in rows).get("package sequence")
    print(f"{'path':<22}{'cpu s':>9}{'wall s':>9}{'x real time':>13}{'x sequence':>12}")
    for name, cpu, wall in rows:
        ratio = f"{peer / cpu:12.2f}" if peer else f"{'-':>12}"
        print(f"{name:<22}{cpu:9.2f}{wall:9.2f}{seconds / cpu:13.0f}{ratio}")
    same = results["speecheval 16k simple"] == results["speecheval 16k"]
    print(f"segments of speecheval 16k identical to speecheval 16k simple: "
          f"{'yes' if same else 'NO'}")
    if not peers:
        print("torch is not installed: the package paths are left out "
              "(pip install '.[parity]' to measure them)")
        return
    for name in peers:
        same = results[name] == results["speecheval 16k"]
        print(f"segments of speecheval 16k identical to {name}: {'yes' if same else 'NO'}")
    cpu16 = rows[0][1]
    assert peer is not None
    verdict = "meets" if peer / cpu16 >= TARGET_RATIO else "MISSES"
    print(f"16 kHz path {verdict} the {TARGET_RATIO}x target against the package's "
          f"sequence path (issue 15)")


if __name__ == "__main__":
    main()
