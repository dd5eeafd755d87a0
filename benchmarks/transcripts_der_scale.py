"""Time and peak memory of ``speecheval transcripts der`` on one file pair of many turns.

Issue 15 asks for 1M reference and 1M system turns in one file pair in under 3 s and under
300 MB peak, growing linearly in turns and not in turns x speakers. Each case is a whole
``speecheval transcripts der --json`` process (parsing, default UEM, the main protocol
with its overlap variants, JER, the md-eval differences, the JSON), run in a fresh
subprocess; the wall time and the peak resident memory (``VmHWM`` of that child) are
printed for 10k, 100k, 1M and 3M turns a side and for 4 and 32 speakers.

The pairs are synthetic and seeded: each reference speaker's turns follow one another
(0.5-6 s long, gaps sized so that about 1.3 speakers talk at once, whatever the number of
speakers); the system moves every boundary by up to 0.3 s, renames the speakers and gives
a tenth of the turns to one extra speaker.

Run: ``.venv/bin/python benchmarks/transcripts_der_scale.py [--sizes 10000 100000]
[--speakers 4 32]`` (exit 1 if the 1M case misses a target).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SRC = Path(__file__).resolve().parents[1] / "src"
TARGET_TURNS = 1_000_000
TARGET_S = 3.0
TARGET_MB = 300.0
CONCURRENCY = 1.3
MEAN_TURN_S = 3.25


def synthetic_pair(turns: int, speakers: int, seed: int = 0) -> tuple[str, str]:
    """RTTM text of a reference and a system of ``turns`` turns each (see the module)."""
    rng = np.random.default_rng(seed)
    per_speaker = turns // speakers
    mean_gap = MEAN_TURN_S * (speakers / CONCURRENCY - 1)
    lengths = rng.uniform(0.5, 6.0, (speakers, per_speaker))
    gaps = rng.uniform(0.0, 2 * mean_gap, (speakers, per_speaker))
    starts = (np.cumsum(gaps + lengths, axis=1) - lengths).ravel()
    lengths = lengths.ravel()
    labels = np.repeat(np.arange(speakers), per_speaker)
    order = np.argsort(starts, kind="stable")
    starts, lengths, labels = starts[order], lengths[order], labels[order]
    jitter = rng.uniform(-0.3, 0.3, (starts.size, 2))
    hyp_starts = np.maximum(starts + jitter[:, 0], 0.0)
    hyp_lengths = np.maximum(starts + lengths + jitter[:, 1] - hyp_starts, 0.0)
    moved = rng.random(starts.size) < 0.1
    hyp_labels = np.where(moved, speakers, speakers - 1 - labels)
    return (_rttm_text(starts, lengths, labels, "spk"),
            _rttm_text(hyp_starts, hyp_lengths, hyp_labels, "sys"))


def _rttm_text(starts: np.ndarray, lengths: np.ndarray, labels: np.ndarray,
               prefix: str) -> str:
    return "".join(f"SPEAKER rec 1 {s:.3f} {d:.3f} <NA> <NA> {prefix}{k} <NA> <NA>\n"
                   for s, d, k in zip(starts.tolist(), lengths.tolist(), labels.tolist(),
                                      strict=True))


# Runs the command and writes the process's peak resident memory (VmHWM) to a file.
# ru_maxrss would not do: Linux keeps it across exec, so a child forked from this large
# process would report this process's size.
_CHILD = """
import sys
from pathlib import Path
from speecheval.cli import main
code = main(sys.argv[2:])
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
Path(sys.argv[1]).write_text(hwm[0].split()[1])
sys.exit(code)
"""


def run_der(ref: Path, hyp: Path) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MB) of one ``speecheval transcripts der``
    process."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    peak_file = ref.with_suffix(".peak")
    argv = [sys.executable, "-c", _CHILD, str(peak_file), "transcripts", "der", "--ref",
            str(ref), "--hyp", str(hyp), "--json"]
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"speecheval transcripts der exited {done.returncode} on {ref}")
    peak_kib = int(peak_file.read_text())
    peak_file.unlink()
    return seconds, peak_kib / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=[10_000, 100_000, 1_000_000, 3_000_000])
    parser.add_argument("--speakers", type=int, nargs="+", default=[4, 32])
    args = parser.parse_args()
    ok = True
    print(f"{'turns a side':>12} {'speakers':>8} {'wall s':>8} {'peak MB':>8} {'us/turn':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for speakers in args.speakers:
            for turns in args.sizes:
                ref_text, hyp_text = synthetic_pair(turns, speakers)
                ref, hyp = Path(tmp, "ref.rttm"), Path(tmp, "hyp.rttm")
                ref.write_text(ref_text)
                hyp.write_text(hyp_text)
                del ref_text, hyp_text
                seconds, peak_mb = run_der(ref, hyp)
                print(f"{turns:12,d} {speakers:8d} {seconds:8.2f} {peak_mb:8.1f} "
                      f"{seconds / turns * 1e6:8.2f}", flush=True)
                if turns == TARGET_TURNS:
                    ok &= seconds < TARGET_S and peak_mb < TARGET_MB
                ref.unlink()
                hyp.unlink()
    print("PASS" if ok else "FAIL",
          f"(target: {TARGET_TURNS:,d} turns a side under {TARGET_S:g} s and "
          f"{TARGET_MB:g} MB)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
