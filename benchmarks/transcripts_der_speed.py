"""Speed of ``speecheval transcripts der`` against pyannote.metrics, measured in one run.

Targets (issue 4): DER of a one-hour, 900-segment RTTM pair in under 0.1 s and at least
5x faster than pyannote.metrics; peak memory reported (and under 500 MB for a 3-hour
recording). The pair is synthetic and seeded: four reference speakers with some overlap,
and a system that moves boundaries, merges and splits turns and confuses speakers, so the
mapping and every error type are exercised. Both scorers get the same turns, the same UEM
and the same collar (ours +-0.25 s, pyannote ``collar=0.5``); each timing is the median of
several runs on already-parsed input (RTTM parsing is timed separately).

Whole process (issue 15): a user runs a command, so ``speecheval transcripts der`` and a
pyannote.metrics script (read both RTTMs, build the annotations, score with the same UEM
and collar, print the DER) are also timed as fresh processes on the same files, the
minimum of three runs each; the target is at least 4x.

Run: ``.venv/bin/python benchmarks/transcripts_der_speed.py`` (exit 1 if a target is missed).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from whole_process import process_times

from speecheval.transcripts.diarization.score import score_files, total
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.uem import UEM

HOUR_S = 3600.0
SEGMENTS_PER_HOUR = 900
REPEATS = 15
TARGET_S = 0.1
TARGET_RATIO = 5.0
MEMORY_LIMIT_MB = 500.0
PROCESS_RATIO = 4.0
# The peer as a user would run it: a script reading the two RTTM files.
PYANNOTE_SCRIPT = """
import sys, warnings
from pyannote.core import Annotation, Segment, Timeline
from pyannote.metrics.diarization import DiarizationErrorRate
def load(path):
    ann = Annotation(uri="rec")
    for track, line in enumerate(open(path)):
        f = line.split()
        ann[Segment(float(f[3]), float(f[3]) + float(f[4])), track] = f[7]
    return ann
warnings.simplefilter("ignore")
uem = Timeline([Segment(0.0, float(sys.argv[3]))])
print(DiarizationErrorRate(collar=0.5)(load(sys.argv[1]), load(sys.argv[2]), uem=uem))
"""


def synthetic_pair(hours: float, seed: int = 0) -> tuple[str, str]:
    """RTTM text of a reference and a system, ``900 * hours`` segments each.

    Each reference speaker's turns follow one another (speakers overlap each other, never
    themselves, so pyannote.metrics and speecheval score the same thing). The system
    moves every boundary by up to 0.3 s, renames the speakers and gives a tenth of
    ``spk0``'s turns to an extra speaker (confusion).
    """
    rng = np.random.default_rng(seed)
    per_speaker = round(SEGMENTS_PER_HOUR * hours / 4)
    ref: list[tuple[float, float, str]] = []
    for k in range(4):
        lengths = rng.uniform(1.0, 7.0, per_speaker)
        gaps = rng.uniform(2.0, 18.0, per_speaker)
        starts = np.cumsum(gaps + lengths) - lengths
        starts *= HOUR_S * hours * 0.98 / (starts[-1] + lengths[-1])
        ref += [(s, d, f"spk{k}") for s, d in zip(starts, lengths, strict=True)]
    ref.sort()
    jitter = rng.uniform(-0.3, 0.3, (len(ref), 2))
    moved = rng.random(len(ref)) < 0.1
    hyp = [(s + a, d + b - a, "sys4" if k == "spk0" and m else f"sys{3 - int(k[-1])}")
           for (s, d, k), (a, b), m in zip(ref, jitter, moved, strict=True)]
    return _rttm_text(ref), _rttm_text(hyp)


def _rttm_text(turns: list[tuple[float, float, str]]) -> str:
    return "".join(f"SPEAKER rec 1 {s:.3f} {d:.3f} <NA> <NA> {k} <NA> <NA>\n"
                   for s, d, k in turns)


def median_time(run: Callable[[], object], repeats: int = REPEATS) -> float:
    """Median wall time of ``repeats`` runs (after one warm-up run)."""
    run()
    times = []
    for _ in range(repeats):
        begin = time.perf_counter()
        run()
        times.append(time.perf_counter() - begin)
    return statistics.median(times)


def ours(ref: RTTM, hyp: RTTM, uem: UEM) -> float | None:
    """Main-protocol DER (mapping over the UEM, as md-eval)."""
    files = score_files(ref, hyp, uem, collar_s=0.25)
    assert isinstance(files, dict)
    return total(files).overlap_included.der


def pyannote_runner(ref: RTTM, hyp: RTTM, end: float) -> Callable[[], Any] | None:
    """A closure scoring with pyannote.metrics, or None when it is not installed."""
    try:
        from pyannote.core import (  # type: ignore[import-untyped]
            Annotation,
            Segment,
            Timeline,
        )
        from pyannote.metrics.diarization import DiarizationErrorRate
    except ImportError:
        return None

    def annotation(rttm: RTTM) -> Annotation:
        ann = Annotation(uri="rec")
        for track, turn in enumerate(rttm.turns):
            ann[Segment(turn.start, turn.end), track] = turn.speaker
        return ann

    ref_ann, hyp_ann = annotation(ref), annotation(hyp)
    uem = Timeline([Segment(0.0, end)])

    def run() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return DiarizationErrorRate(collar=0.5)(ref_ann, hyp_ann, uem=uem)

    return run


def peak_memory_mb(hours: float) -> float:
    """Peak traced allocation (Python and numpy) of parsing and scoring ``hours`` of RTTM."""
    ref_text, hyp_text = synthetic_pair(hours, seed=1)
    tracemalloc.start()
    ref, hyp = RTTM.parse(ref_text), RTTM.parse(hyp_text)
    ours(ref, hyp, UEM.parse(f"rec 1 0 {HOUR_S * hours}"))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def whole_process(ref_text: str, hyp_text: str, with_pyannote: bool) -> bool:
    """Time ``speecheval transcripts der`` and the pyannote script as fresh processes;
    True when ours is at least 4x faster (or pyannote is not installed)."""
    with tempfile.TemporaryDirectory() as tmp:
        ref, hyp, uem = Path(tmp, "ref.rttm"), Path(tmp, "hyp.rttm"), Path(tmp, "all.uem")
        ref.write_text(ref_text)
        hyp.write_text(hyp_text)
        uem.write_text(f"rec 1 0 {HOUR_S}\n")
        ours = min(process_times([sys.executable, "-m", "speecheval", "transcripts", "der",
                                "--ref", str(ref), "--hyp", str(hyp), "--uem", str(uem)]))
        print(f"whole process: speecheval transcripts der {ours:8.3f} s")
        if not with_pyannote:
            return True
        theirs = min(process_times([sys.executable, "-c", PYANNOTE_SCRIPT, str(ref), str(hyp),
                                  str(HOUR_S)]))
        print(f"whole process: pyannote.metrics script   {theirs:8.3f} s")
        print(f"whole process ratio pyannote / ours: {theirs / ours:.1f}x "
              f"(target >= {PROCESS_RATIO:g}x)")
        return theirs / ours >= PROCESS_RATIO


def main() -> int:
    ref_text, hyp_text = synthetic_pair(1.0)
    parse_s = median_time(lambda: (RTTM.parse(ref_text), RTTM.parse(hyp_text)))
    ref, hyp = RTTM.parse(ref_text), RTTM.parse(hyp_text)
    uem = UEM.parse(f"rec 1 0 {HOUR_S}")
    ours_s = median_time(lambda: ours(ref, hyp, uem))
    print(f"one hour, {len(ref.turns)} reference / {len(hyp.turns)} system segments, "
          "collar +-0.25 s")
    print(f"speecheval DER      {ours_s * 1000:8.2f} ms  (DER {ours(ref, hyp, uem):.6f}); "
          f"parsing both RTTMs {parse_s * 1000:.2f} ms")
    ok = ours_s < TARGET_S
    runner = pyannote_runner(ref, hyp, HOUR_S)
    if runner is None:
        print("pyannote.metrics is not installed: no speed ratio measured")
        ok = False
    else:
        theirs_s = median_time(runner, repeats=3)  # seconds per run
        ratio = theirs_s / ours_s
        print(f"pyannote.metrics    {theirs_s * 1000:8.2f} ms  (DER {runner():.6f}, "
              "collar=0.5)")
        print(f"speed ratio         {ratio:8.1f}x  (target >= {TARGET_RATIO:g}x, in one "
              "process)")
        ok = ok and ratio >= TARGET_RATIO
    ok = whole_process(ref_text, hyp_text, with_pyannote=runner is not None) and ok
    one_hour_mb, three_hours_mb = peak_memory_mb(1.0), peak_memory_mb(3.0)
    print(f"peak traced memory  {one_hour_mb:8.2f} MB one hour, {three_hours_mb:.2f} MB three "
          f"hours (limit {MEMORY_LIMIT_MB:g} MB)")
    ok = ok and three_hours_mb < MEMORY_LIMIT_MB
    print(f"{'PASS' if ok else 'FAIL'}: under {TARGET_S:g} s and >= {TARGET_RATIO:g}x faster "
          f"in one process, >= {PROCESS_RATIO:g}x as whole processes")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
