"""Startup time of the ``speecheval`` command, against a bare ``import numpy, click``.

Issue 15 asks for ``speecheval --help`` and ``speecheval transcripts der --help`` under
0.3 s: a command imports what it needs when it runs (:mod:`speecheval.cli_lazy`), so a
help page costs about as much as starting Python with numpy and click. Each command runs
in a fresh process, several times; the minimum and the median wall times are printed,
with each command's ratio to the baseline measured in the same run (on a loaded machine
the ratio says more than the seconds).

Run: ``.venv/bin/python benchmarks/cli_startup.py [--repeats N]`` (exit 1 if a median is
over the target).
"""

from __future__ import annotations

import argparse
import statistics
import sys

from whole_process import process_times

TARGET_S = 0.3
BASELINE = ("python -c 'import numpy, click'", [sys.executable, "-c", "import numpy, click"])
COMMANDS = [
    ("speecheval --help", [sys.executable, "-m", "speecheval", "--help"]),
    ("speecheval transcripts der --help",
     [sys.executable, "-m", "speecheval", "transcripts", "der", "--help"]),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    process_times(BASELINE[1], 1)  # warm the file cache
    base = process_times(BASELINE[1], args.repeats)
    base_median = statistics.median(base)
    print(f"{'command':<36} {'min s':>7} {'median s':>9} {'vs baseline':>12}")
    print(f"{BASELINE[0]:<36} {min(base):7.3f} {base_median:9.3f} {'1.00x':>12}")
    ok = True
    for name, argv in COMMANDS:
        times = process_times(argv, args.repeats)
        median = statistics.median(times)
        ok &= median < TARGET_S
        print(f"{name:<36} {min(times):7.3f} {median:9.3f} {median / base_median:11.2f}x")
    print("PASS" if ok else "FAIL", f"(target: each median under {TARGET_S} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
