"""Time and peak memory of ``speecheval transcripts der`` on one file pair of many turns.

Issue 15 asks for 1M reference and 1M system turns in one file pair in under 3 s and under
300 MB peak, growing linearly in turns and not in turns x speakers. Each case is a whole
``speecheval transcripts der --json`` process (parsing, default UEM, the main protocol
with its overlap variants, JER, the md-eval differences, the JSON), run in a fresh
subprocess; the wall time, the CPU time (user + system, steadier than the wall time on a
shared machine) and the peak resident memory (``VmHWM`` of that child) are printed for
10k, 100k, 1M and 3M turns a side and for 4 and 32 speakers.

The peer, in the same run: the pyannote.metrics script of ``transcripts_der_speed.py``
(read both RTTMs, score with the same UEM, ``[0, last turn end]``, and the same collar),
as a fresh process too, for the sizes up to ``--peer-max-turns`` (default 10k: it takes
minutes there already), with the ratio of the times.

The pairs are synthetic and seeded: each reference speaker's turns follow one another
(0.5-6 s long, gaps sized so that about 1.3 speakers talk at once, whatever the number of
speakers); the system moves every boundary by up to 0.3 s, renames the speakers and gives
a tenth of the turns to one extra speaker.

With ``--baseline-src DIR`` (another checkout's ``src``, e.g. the main branch's), each case
is also run with that code, right after this one's, and the ratio of the wall times is
printed (baseline / this): on a busy machine the absolute times drift, the ratio less so.

Run: ``.venv/bin/python benchmarks/transcripts_der_scale.py [--sizes 10000 100000]
[--speakers 4 32] [--peer-max-turns 0] [--baseline-src ../main/src]`` (exit 1 if the 1M
case misses a target).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from transcripts_der_speed import PYANNOTE_SCRIPT

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


# Each child writes its peak resident memory (VmHWM) to the file named by its first
# argument. ru_maxrss would not do: Linux keeps it across exec, so a child forked from this
# large process would report this process's size.
_WRITE_PEAK = """
import sys
from pathlib import Path
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
Path(PEAK_FILE).write_text(hwm[0].split()[1])
"""
_OURS = """
import sys
PEAK_FILE = sys.argv.pop(1)
from speecheval.cli import main
code = main(sys.argv[1:])
""" + _WRITE_PEAK + "sys.exit(code)\n"
_PEER = "import sys\nPEAK_FILE = sys.argv.pop(1)\n" + PYANNOTE_SCRIPT + _WRITE_PEAK


class Measured:
    """Wall seconds, CPU seconds (user + system) and peak resident MB of one process."""

    def __init__(self, program: str, args: list[str], peak_file: Path, src: Path = SRC) -> None:
        env = {**os.environ, "PYTHONPATH": str(src)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", program, str(peak_file), *args], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wall_s = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"{args[:2]} exited {done.returncode}")
        self.cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        self.peak_mb = int(peak_file.read_text()) / 1024
        peak_file.unlink()


def run_der(ref: Path, hyp: Path, src: Path = SRC) -> Measured:
    """One ``speecheval transcripts der --json`` process, with the code under ``src``."""
    return Measured(_OURS, ["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp),
                            "--json"], ref.with_suffix(".peak"), src)


def run_peer(ref: Path, hyp: Path, end_s: float) -> Measured:
    """The pyannote.metrics script over ``[0, end_s]`` (our default UEM)."""
    return Measured(_PEER, [str(ref), str(hyp), repr(end_s)], ref.with_suffix(".peak"))


def last_end(*texts: str) -> float:
    """The last turn end of RTTM texts, in seconds (our default UEM's end)."""
    return max(float(fields[3]) + float(fields[4]) for text in texts
               for fields in (line.split() for line in text.splitlines()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=[10_000, 100_000, 1_000_000, 3_000_000])
    parser.add_argument("--speakers", type=int, nargs="+", default=[4, 32])
    parser.add_argument("--peer-max-turns", type=int, default=10_000)
    parser.add_argument("--baseline-src", type=Path, default=None,
                        help="another checkout's src directory, run after each case")
    args = parser.parse_args()
    ok = True
    print(f"{'turns a side':>12} {'speakers':>8} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} "
          f"{'us/turn':>8}  peer (pyannote.metrics script): wall s, cpu s, peak MB, "
          "cpu ratio" + ("; baseline: wall s, cpu s, peak MB, wall ratio"
                         if args.baseline_src else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for speakers in args.speakers:
            for turns in args.sizes:
                ref_text, hyp_text = synthetic_pair(turns, speakers)
                ref, hyp = Path(tmp, "ref.rttm"), Path(tmp, "hyp.rttm")
                ref.write_text(ref_text)
                hyp.write_text(hyp_text)
                end_s = last_end(ref_text, hyp_text) if turns <= args.peer_max_turns else None
                del ref_text, hyp_text
                ours = run_der(ref, hyp)
                line = (f"{turns:12,d} {speakers:8d} {ours.wall_s:8.2f} {ours.cpu_s:8.2f} "
                        f"{ours.peak_mb:8.1f} {ours.cpu_s / turns * 1e6:8.2f}")
                if end_s is not None:
                    peer = run_peer(ref, hyp, end_s)
                    line += (f"  {peer.wall_s:8.2f} {peer.cpu_s:8.2f} {peer.peak_mb:8.1f} "
                             f"{peer.cpu_s / ours.cpu_s:7.1f}x")
                if args.baseline_src is not None:
                    base = run_der(ref, hyp, args.baseline_src.resolve())
                    line += (f"  baseline {base.wall_s:8.2f} {base.cpu_s:8.2f} "
                             f"{base.peak_mb:8.1f} {base.wall_s / ours.wall_s:5.2f}x")
                print(line, flush=True)
                if turns == TARGET_TURNS:
                    ok &= ours.wall_s < TARGET_S and ours.peak_mb < TARGET_MB
                ref.unlink()
                hyp.unlink()
    print("PASS" if ok else "FAIL",
          f"(target: {TARGET_TURNS:,d} turns a side under {TARGET_S:g} s and "
          f"{TARGET_MB:g} MB)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
