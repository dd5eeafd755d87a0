"""Does the plain RTTM reader still pay? It against the line reader, on the same file, in one run.

``RTTM.load`` reads a plain RTTM (:mod:`speecheval.transcripts.formats.rttm_plain`: ten
fields, single spaces, ``1`` and ``<NA>`` in the unused columns, short decimals) with
array operations, and any other file with the line reader (one :class:`RttmTurn` a line,
the checks and messages of :mod:`speecheval.transcripts.formats.rttm`). The fast path is
kept only while it is clearly faster than the simple one: this script writes one seeded
RTTM of each size (the reference side of ``transcripts_der_scale.py``), reads it both
ways in this process, checks that both give the same columns, and prints the best of
``--repeats`` wall times of each and their ratio (line / plain). Both include reading the
file; the peak traced memory of one read of each is printed beside them.

Run: ``.venv/bin/python benchmarks/transcripts_rttm_parse_speed.py [--sizes 100000 1000000]
[--speakers 4] [--repeats 3]`` (exit 1 if the plain reader is less than ``--min-ratio``
times faster at the largest size, i.e. when it no longer pays).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
from transcripts_der_scale import synthetic_pair

from speecheval.transcripts.formats._io import read_text
from speecheval.transcripts.formats.rttm import RTTM, _ColumnReader
from speecheval.transcripts.formats.rttm_plain import plain_columns

MIN_RATIO = 3.0


def line_reader(path: Path) -> RTTM:
    """The simple path: the text decoded, then one turn object a line."""
    return _ColumnReader(str(path)).read(read_text(path, "RTTM"))


def plain_reader(path: Path) -> RTTM:
    """The fast path as ``RTTM.load`` takes it (it falls back to the line reader when the
    file is not plain: the benchmark checks that it did not)."""
    assert plain_columns(path.read_bytes()) is not None, "the benchmark file is not plain"
    return RTTM.load(path)


def best_of(read: Callable[[Path], RTTM], path: Path, repeats: int) -> tuple[float, RTTM]:
    """The shortest wall time of ``repeats`` reads, and the last result."""
    times = []
    result = None
    for _ in range(repeats):
        started = time.perf_counter()
        result = read(path)
        times.append(time.perf_counter() - started)
    assert result is not None
    return min(times), result


def peak_mb(read: Callable[[Path], RTTM], path: Path) -> float:
    """Peak memory traced while one read runs (numpy arrays included)."""
    tracemalloc.start()
    read(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def same_columns(a: RTTM, b: RTTM) -> bool:
    """Both reads hold the same turns: names, codes and microseconds."""
    x, y = a.columns, b.columns
    return (x.file_names == y.file_names and x.speaker_names == y.speaker_names
            and all(np.array_equal(p, q) for p, q in ((x.files, y.files),
                                                       (x.speakers, y.speakers),
                                                       (x.starts, y.starts), (x.ends, y.ends))))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--speakers", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--min-ratio", type=float, default=MIN_RATIO)
    args = parser.parse_args()
    print(f"{'turns':>10} {'MB':>6} {'line s':>8} {'plain s':>8} {'ratio':>7} "
          f"{'line peak MB':>12} {'plain peak MB':>13}")
    ratio = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for turns in args.sizes:
            path = Path(tmp, "turns.rttm")
            path.write_text(synthetic_pair(turns, args.speakers)[0], encoding="utf-8")
            line_s, by_line = best_of(line_reader, path, args.repeats)
            plain_s, by_plain = best_of(plain_reader, path, args.repeats)
            if not same_columns(by_line, by_plain):
                print(f"{turns}: the two readers disagree")
                return 1
            del by_line, by_plain
            ratio = line_s / plain_s
            print(f"{turns:10,d} {path.stat().st_size / 2**20:6.1f} {line_s:8.3f} "
                  f"{plain_s:8.3f} {ratio:6.1f}x {peak_mb(line_reader, path):12.1f} "
                  f"{peak_mb(plain_reader, path):13.1f}", flush=True)
            path.unlink()
    pays = ratio >= args.min_ratio
    print("PASS" if pays else "FAIL", f"(the plain reader must be at least {args.min_ratio:g}x "
          "faster than the line reader at the largest size to stay)")
    return 0 if pays else 1


if __name__ == "__main__":
    sys.exit(main())
