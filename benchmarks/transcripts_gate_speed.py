"""Speed of the engineering-completeness gate on a 3-hour raw output (issue 12: < 2 s).

The raw output is generated (seeded): raw tagged segments ``[start][S0k]text[end]`` of
4 s over three hours (2,700 segments), four speakers, mixed Chinese and English text at
the issue-4 density of 16.7 characters a second (about 180k characters), a repeated
sentence now and then, a decoding loop near the end and a cut last segment, so every check
has work to do. Timed: :func:`gate_file` as the command runs it (read the bytes, hash them,
read the raw tolerantly, the five checks, the record), the best of five runs; then the
whole command ``speecheval transcripts gate --raw`` as fresh processes (best of three).
Peer in the same run: the strict raw-output reader the scorers use
(``formats.raw_tagged.RawTagged.parse``) on the same text, to put the gate's cost beside
the cost of merely parsing the file.

Run: ``.venv/bin/python benchmarks/transcripts_gate_speed.py``
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from whole_process import process_times

from speecheval.transcripts.formats.raw_tagged import RawTagged
from speecheval.transcripts.gate.apply import gate_file
from speecheval.transcripts.gate.rules import GateRules
from speecheval.transcripts.gate.verdict import SampleFacts

HOURS = 3.0
TURN_S = 4.0
DENSITY = 16.7
TARGET_S = 2.0
HAN = [chr(0x4E00 + i) for i in range(3000)]
WORDS = ["model", "latency", "podcast", "meeting", "python", "gpu", "api", "diarization"]


def generate(seed: int = 20261130) -> str:
    """The raw output text (see the module docstring)."""
    rng = random.Random(seed)
    out = []
    turns = round(HOURS * 3600 / TURN_S)
    for turn in range(turns):
        start = turn * TURN_S
        parts = []
        for _ in range(round(DENSITY * TURN_S)):
            parts.append(rng.choice(HAN) if rng.random() < 0.9 else f" {rng.choice(WORDS)} ")
        text = "".join(parts)
        if turn % 300 == 7:
            text = text + text  # a repeated sentence
        if turn == turns - 20:
            text = "thank you " * 60  # a loop
        out.append(f"[{start:.2f}][S0{1 + rng.randrange(4)}]{text}[{start + TURN_S - 0.3:.2f}]")
    return "".join(out)[:-40]  # cut inside the last segment


def best(times: list[float]) -> float:
    return min(times)


def main() -> int:
    text = generate()
    duration = HOURS * 3600
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.txt"
        raw.write_text(text, encoding="utf-8")
        sample = SampleFacts(duration, duration - 5.0)
        gate_times, parse_times = [], []
        record = {}
        for _ in range(5):
            started = time.perf_counter()
            record = gate_file(raw, "raw", sample, None, GateRules())
            gate_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            RawTagged.parse(text, "raw")
            parse_times.append(time.perf_counter() - started)
        process = process_times([sys.executable, "-m", "speecheval", "transcripts", "gate",
                                 "--raw", str(raw), "--duration", str(duration),
                                 "--last-speech", str(duration - 5.0)])
    gate_s, parse_s, process_s = best(gate_times), best(parse_times), best(process)
    print(f"raw output: {HOURS:g} h, {len(text):,} characters, "
          f"{record['repeat_timeline']['segments']:,} segments, "
          f"{record['repeat_timeline']['repeats']['tokens']:,} normalized tokens")
    print(f"verdict: {record['verdict']} ({'; '.join(record['verdict_reasons'])})")
    print(f"gate (in process, best of 5): {gate_s:.3f} s; target < {TARGET_S:g} s: "
          f"{'met' if gate_s < TARGET_S else 'NOT met'}")
    print(f"peer, strict raw-output parse of the same text: {parse_s:.3f} s; "
          f"gate / parse = {gate_s / parse_s:.2f}x")
    print(f"whole command (fresh process, best of 3): {process_s:.3f} s; target < "
          f"{TARGET_S:g} s: {'met' if process_s < TARGET_S else 'NOT met'}")
    return 0 if gate_s < TARGET_S and process_s < TARGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
