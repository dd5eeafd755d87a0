"""How fast speecheval's Silero path runs, against the torch JIT reference, on one core.

The FDB v1.0 scorer needs Silero at least 300x faster than real time per core. This script
builds a deterministic stretch of mixed audio (espeak-ng sentences with pauses of 50 ms to
1.5 s, noise, tones, silence) from the committed test sentences, and times:

- ``speecheval 16k``: ``SileroVad.segments`` on 16 kHz audio (the sequence-model fast path);
- ``speecheval 24k``: the same audio at 24 kHz, which is resampled to 16 kHz first;
- ``speecheval 8k``: the same audio at 8 kHz (streaming model, one call per window);
- ``torch jit 16k``: ``silero_vad.get_speech_timestamps`` with ``load_silero_vad()`` and
  ``torch.set_num_threads(1)``, the reference the spec names (left out, with a message,
  when torch is not installed).

Real-time factors are audio seconds over CPU seconds of this process (every path runs on
one thread, so CPU time is the per-core cost and is not inflated by other load on a shared
machine); wall seconds are printed too. Run from the repository root::

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
from speecheval.core.timeline import Span as SpeechSegment
from speecheval.vad.silero import SileroVad

RATE = 16_000
SENTENCES = Path(__file__).resolve().parents[1] / "tests" / "data" / "vad"
TARGET_RTF = 300.0


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


def timed(run: Callable[[], list[SpeechSegment]], repeat: int
          ) -> tuple[float, float, list[SpeechSegment]]:
    """Best CPU and wall seconds over ``repeat`` runs, and the last result."""
    best_cpu = best_wall = float("inf")
    result: list[SpeechSegment] = []
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        result = run()
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return best_cpu, best_wall, result


def torch_reference(samples: NDArray[np.float32]) -> Callable[[], list[SpeechSegment]] | None:
    """A closure running the torch JIT reference, or None when torch is not installed."""
    if importlib.util.find_spec("torch") is None:
        return None
    import torch
    from silero_vad import (  # type: ignore[import-untyped]
        get_speech_timestamps,
        load_silero_vad,
    )

    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_silero_vad()
    tensor = torch.from_numpy(samples)

    def run() -> list[SpeechSegment]:
        found = get_speech_timestamps(tensor, model, threshold=0.5, min_speech_duration_ms=250,
                                      min_silence_duration_ms=100, speech_pad_ms=0)
        return [SpeechSegment(item["start"] / RATE, min(item["end"], samples.size) / RATE)
                for item in found]

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=3, help="runs per path; best is kept")
    args = parser.parse_args()

    samples = mixed_audio(args.minutes)
    seconds = samples.size / RATE
    vad = SileroVad()
    at16 = Audio(samples, RATE)
    at24 = Audio(resample(samples, RATE, 24_000), 24_000)
    at8 = Audio(resample(samples, RATE, 8_000), 8_000)

    rows: list[tuple[str, float, float]] = []
    cpu16, wall16, ours = timed(lambda: vad.segments(at16), args.repeat)
    rows.append(("speecheval 16k", cpu16, wall16))
    cpu24, wall24, _ = timed(lambda: vad.segments(at24), args.repeat)
    rows.append(("speecheval 24k", cpu24, wall24))
    cpu8, wall8, _ = timed(lambda: vad.segments(at8), 1)
    rows.append(("speecheval 8k", cpu8, wall8))
    reference = torch_reference(samples)
    torch_cpu: float | None = None
    if reference is not None:
        torch_cpu, torch_wall, expected = timed(reference, 1)
        rows.append(("torch jit 16k", torch_cpu, torch_wall))

    print(f"audio: {seconds:.0f} s of mixed speech, noise, tones and silence; "
          f"{len(ours)} speech segments at 16 kHz")
    print(f"{'path':<16}{'cpu s':>9}{'wall s':>9}{'x real time':>13}{'x torch':>9}")
    for name, cpu, wall in rows:
        ratio = f"{torch_cpu / cpu:9.1f}" if torch_cpu else f"{'-':>9}"
        print(f"{name:<16}{cpu:9.2f}{wall:9.2f}{seconds / cpu:13.0f}{ratio}")
    if reference is None:
        print("torch is not installed: the reference column is left out "
              "(pip install '.[parity]' to measure it)")
    else:
        print(f"segments identical to the torch reference: {'yes' if ours == expected else 'NO'}")
    verdict = "meets" if seconds / cpu16 >= TARGET_RTF else "MISSES"
    print(f"16 kHz path {verdict} the {TARGET_RTF:.0f}x real-time target per core")


if __name__ == "__main__":
    main()
