"""Random RTTM speaker turns for the cross-checks against md-eval and pyannote.metrics."""

from __future__ import annotations

import numpy as np


def random_speaker_lines(rng: np.random.Generator, file_id: str, prefix: str,
                         self_overlap: bool = False) -> list[str]:
    """``SPEAKER`` lines of 1-4 speakers ``<prefix>0``, ... over about a minute of ``file_id``.

    Times sit on a 1 ms grid (md-eval and pyannote see the same numbers we parse). Gaps
    between a speaker's turns are 0-8 s; with ``self_overlap`` they are -1-6 s, so a
    speaker's turns may overlap each other.
    """
    lines = []
    for k in range(int(rng.integers(1, 5))):
        t = rng.uniform(0, 5)
        while t < 60:
            start, duration = round(t, 3), round(rng.uniform(0.2, 6.0), 3)
            lines.append(f"SPEAKER {file_id} 1 {start:.3f} {duration:.3f} <NA> <NA> "
                         f"{prefix}{k} <NA> <NA>")
            gap = rng.uniform(-1.0, 6.0) if self_overlap else rng.uniform(0.0, 8.0)
            t = start + duration + gap
    return lines
