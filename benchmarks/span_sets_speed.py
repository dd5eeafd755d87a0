"""The scoring regions' interval algebra against :class:`~speecheval.core.timeline.Spans`.

DER scoring builds its regions (the UEM minus the collars around every reference
boundary) from sets of about a million intervals, with the specialised (n, 2) int64
algebra of ``transcripts/diarization/interval_sets.py``. The same sets are
:class:`Spans` operations (``union``, ``difference``, ``intersection``); this benchmark
times both on the same seeded sets, in the same run, checks that they give the same
intervals, and prints the ratio (Spans / specialised). The specialised algebra stays
only while the ratio says it pays (docs/adr/0014-one-time-span-one-svg-frame.md).

The sets: ``--turns`` turns 0.5-6 s long that overlap about 1.3 deep (as a diarization
reference), a second such set shifted by up to 0.3 s (a hypothesis), one UEM region over
all, and the collar zones ``[b - 0.25 s, b + 0.25 s)`` around every boundary.

Run: ``.venv/bin/python benchmarks/span_sets_speed.py [--turns 1000000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from speecheval.core.timeline import Spans
from speecheval.transcripts.diarization import interval_sets as sets

COLLAR_US = 250_000


def _turns(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    lengths = rng.integers(500_000, 6_000_000, n)
    starts = np.cumsum(rng.integers(0, 5_000_000, n))  # 2.5 s apart: 1.3 deep
    return starts.astype(np.int64), (starts + lengths).astype(np.int64)


def _best(repeat: int, work: Callable[[], object]) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        began = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - began)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(26)
    ref_starts, ref_ends = _turns(rng, args.turns)
    shift = rng.integers(-300_000, 300_000, args.turns)
    hyp_starts = np.maximum(ref_starts + shift, 0)
    hyp_ends = np.maximum(ref_ends + shift, hyp_starts)
    ref_pairs = np.stack([ref_starts, ref_ends], axis=1)
    hyp_pairs = np.stack([hyp_starts, hyp_ends], axis=1)
    ref, hyp = Spans(ref_starts, ref_ends), Spans(hyp_starts, hyp_ends)
    uem_pairs = np.array([[0, int(ref_ends.max())]], dtype=np.int64)
    uem = Spans(uem_pairs[:, 0], uem_pairs[:, 1])
    boundaries = np.concatenate([ref_starts, ref_ends])
    zones = Spans(boundaries - COLLAR_US, boundaries + COLLAR_US)

    def pairs(spans: object) -> np.ndarray:
        assert isinstance(spans, Spans)
        return np.stack([spans.starts, spans.ends], axis=1)

    cases: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
        ("union (normalise) of the reference",
         lambda: sets.normalized(ref_pairs), lambda: ref.union()),
        ("reference minus hypothesis",
         lambda: sets.difference(ref_pairs, hyp_pairs), lambda: ref.difference(hyp)),
        ("reference and hypothesis (normalised first)",
         lambda: sets.intersection(sets.normalized(ref_pairs), sets.normalized(hyp_pairs)),
         lambda: ref.intersection(hyp)),
        ("UEM minus the collars",
         lambda: sets.intersection(uem_pairs, sets.outside_around(boundaries.copy(),
                                                                   COLLAR_US)),
         lambda: uem.difference(zones)),
    ]
    print(f"{args.turns} turns a side, best of {args.repeat}")
    print(f"{'operation':46} {'specialised':>12} {'Spans':>9} {'ratio':>6}")
    for name, special, general in cases:
        t_special, out_special = _best(args.repeat, special)
        t_general, out_general = _best(args.repeat, general)
        same = np.array_equal(np.asarray(out_special), pairs(out_general))
        print(f"{name:46} {t_special:10.3f} s {t_general:7.3f} s {t_general / t_special:6.1f}"
              + ("" if same else "  DIFFERENT RESULTS"))


if __name__ == "__main__":
    main()
