"""``speecheval transcripts der`` on 1M + 1M turns, with and without a UEM, against a baseline.

Issue 29's row: one file pair of a million reference and a million system turns (four
speakers, the seeded pair of ``transcripts_der_scale.py``, about 57 MB of RTTM a side),
scored as a user runs it, ``speecheval transcripts der --json``, a fresh process each
time: without a UEM (the default region, ``[0, last turn end]``) and with a UEM file of
one region (the same span, so both cases score the same instants). Targets: under
``TARGET_S`` wall and ``TARGET_MB`` peak resident memory (``VmHWM`` of the child) in
both cases, medians of the rounds. The CPU time (user + system) and the minor page
faults are printed too: on a shared machine they drift less than the wall time.

The baseline is the same command run with another checkout's code
(``--baseline-src DIR``, e.g. ``/work/main/src``: the code before a change); the two
take turns round after round, the order rotated each round, so that the ratio holds on
a machine other work shares. Each figure is printed with the 1-minute load average its
runs started under; the JSON and the warnings of both must be the same bytes, checked
in the same run. Without ``--baseline-src`` only this code is run.

Run: ``.venv/bin/python benchmarks/transcripts_der_million.py [--baseline-src ../main/src]
[--repeats 5] [--turns 1000000]`` (exit 1 if a target is missed or the outputs differ).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from transcripts_der_scale import SRC, last_end, synthetic_pair

TARGET_S = 0.6
TARGET_MB = 250.0
# The child writes its peak resident memory (VmHWM, kB) to the file named by its first
# argument (ru_maxrss would not do: Linux keeps it across exec, see transcripts_der_scale).
_PROGRAM = """
import sys
from pathlib import Path
peak_file = sys.argv.pop(1)
from speecheval.cli import main
code = main(sys.argv[1:])
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
Path(peak_file).write_text(hwm[0].split()[1])
sys.exit(code)
"""


@dataclass(frozen=True)
class Run:
    """One process: wall and CPU seconds, peak resident MB, minor page faults (steadier
    than the times on a busy machine), the load average when it started, and what it
    wrote (stdout and stderr: the JSON and the warnings)."""

    wall_s: float
    cpu_s: float
    peak_mb: float
    faults: int
    load: float
    output: str


def run_der(src: Path, args: list[str], peak_file: Path) -> Run:
    """One ``speecheval transcripts der`` process with the code under ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PROGRAM, str(peak_file), "transcripts",
                           "der", *args, "--json"], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"transcripts der ({src}) exited {done.returncode}: "
                         f"{done.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak = int(peak_file.read_text()) / 1024
    peak_file.unlink()
    return Run(wall, cpu, peak, after.ru_minflt - before.ru_minflt, load,
               done.stdout + done.stderr)


def describe(runs: list[Run]) -> str:
    """Median and min wall, median CPU, median and max peak, and the load range."""
    loads = [run.load for run in runs]
    return (f"wall {statistics.median(r.wall_s for r in runs):6.3f} s "
            f"(min {min(r.wall_s for r in runs):6.3f})  "
            f"cpu {statistics.median(r.cpu_s for r in runs):6.3f} s  "
            f"peak {statistics.median(r.peak_mb for r in runs):6.1f} MB "
            f"(max {max(r.peak_mb for r in runs):6.1f})  "
            f"faults {statistics.median(r.faults for r in runs):7,.0f}  "
            f"load {min(loads):4.1f}-{max(loads):4.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1_000_000)
    parser.add_argument("--speakers", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline-src", type=Path, default=None,
                        help="another checkout's src directory, run in turn with this one")
    args = parser.parse_args()
    codes = {"this": SRC}
    if args.baseline_src is not None:
        codes["baseline"] = args.baseline_src.resolve()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        ref, hyp, uem = Path(tmp, "ref.rttm"), Path(tmp, "hyp.rttm"), Path(tmp, "one.uem")
        ref_text, hyp_text = synthetic_pair(args.turns, args.speakers)
        ref.write_text(ref_text)
        hyp.write_text(hyp_text)
        uem.write_text(f"rec 1 0 {last_end(ref_text, hyp_text):.3f}\n")
        del ref_text, hyp_text
        print(f"{args.turns:,d} + {args.turns:,d} turns, {args.speakers} speakers, "
              f"{(ref.stat().st_size + hyp.stat().st_size) / 1e6:.0f} MB of RTTM; "
              f"{args.repeats} rounds, medians; targets: wall < {TARGET_S:g} s, "
              f"peak < {TARGET_MB:g} MB; {os.cpu_count()} cores")
        cases = {"no UEM": ["--ref", str(ref), "--hyp", str(hyp)],
                 "one-region UEM": ["--ref", str(ref), "--hyp", str(hyp), "--uem", str(uem)]}
        for case, der_args in cases.items():
            runs: dict[str, list[Run]] = {name: [] for name in codes}
            names = list(codes)
            for round_number in range(args.repeats):
                shift = round_number % len(names)
                for name in names[shift:] + names[:shift]:
                    runs[name].append(run_der(codes[name], der_args, Path(tmp, "peak")))
            ours = runs["this"]
            wall = statistics.median(r.wall_s for r in ours)
            peak = statistics.median(r.peak_mb for r in ours)
            met = wall < TARGET_S and peak < TARGET_MB
            ok &= met
            print(f"{case:<15} this     {describe(ours)}  target "
                  f"{'met' if met else 'MISSED'} (wall {'<' if wall < TARGET_S else '>='} "
                  f"{TARGET_S:g} s, peak {'<' if peak < TARGET_MB else '>='} {TARGET_MB:g} MB)")
            if "baseline" in runs:
                base = runs["baseline"]
                same = {r.output for r in ours} == {r.output for r in base} and len(
                    {r.output for r in ours}) == 1
                ok &= same
                ratio = wall / statistics.median(r.wall_s for r in base)
                cpu = (statistics.median(r.cpu_s for r in ours)
                       / statistics.median(r.cpu_s for r in base))
                print(f"{case:<15} baseline {describe(base)}  this/baseline: {ratio:.2f}x "
                      f"wall, {cpu:.2f}x cpu; output {'the same bytes' if same else 'DIFFERS'}")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
