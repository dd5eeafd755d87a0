"""Chunk cuts scored apart (段内表现 / 跨切点惩罚): both sides split at the cuts' margins.

A chunked run (the ``production_complete_file/chunked`` track) was decoded chunk by
chunk; what it got wrong near a cut (a word cut in two, a sentence repeated in both
chunks, speakers relabelled) is a penalty of chunking, what it got wrong inside a chunk is
the system's. So both sides are split by the rule the chunker labels its segments with
(:func:`speecheval.transcripts.run.chunker.region`): a segment that comes within
``margin_s`` of a cut is ``across_cut``, the others ``in_segment``; the reference and the
hypothesis are split the same way and each region is scored on its own. Word-timed rows
are split when both sides have them (a long reference segment would otherwise put every
word of it near the cut); else segments.

DER is time-based, so it is split by time instead: ``across_cut`` scores the union of the
windows ``[cut - margin, cut + margin]`` (inside ``[0, duration]``), ``in_segment`` the
rest, each as a UEM of its own (each with its own optimal speaker mapping).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..formats.segment import Segment
from ..run.chunker import region

REGIONS = ("in_segment", "across_cut")
"""The two regions, in report order."""


@dataclass(frozen=True)
class Cuts:
    """Where a run's chunks were cut (seconds on the sample's timeline) and the margin
    within which a segment counts as ``across_cut``."""

    cuts_s: tuple[float, ...]
    margin_s: float


def split(segments: Sequence[Segment], cuts: Cuts) -> dict[str, tuple[Segment, ...]] | None:
    """The segments of each region; ``None`` when a segment has no start or end time
    (it cannot be placed).

    >>> rows = [Segment("s", None, 0.0, 2.0, "a"), Segment("s", None, 9.5, 10.5, "b")]
    >>> {k: [s.words for s in v] for k, v in split(rows, Cuts((11.0,), 1.0)).items()}
    {'in_segment': ['a'], 'across_cut': ['b']}
    """
    parts: dict[str, list[Segment]] = {name: [] for name in REGIONS}
    for segment in segments:
        if segment.start is None or segment.end is None:
            return None
        parts[region(segment.start, segment.end, list(cuts.cuts_s), cuts.margin_s)].append(
            segment)
    return {name: tuple(found) for name, found in parts.items()}


def time_regions(cuts: Cuts, duration_s: float) -> dict[str, tuple[tuple[float, float], ...]]:
    """The scoring regions of each region in time: the merged windows ``[cut - margin,
    cut + margin]`` inside ``[0, duration_s]``, and the rest of ``[0, duration_s]``.

    >>> found = time_regions(Cuts((10.0, 11.5, 30.0), 1.0), 40.0)
    >>> found["in_segment"], found["across_cut"]
    (((0.0, 9.0), (12.5, 29.0), (31.0, 40.0)), ((9.0, 12.5), (29.0, 31.0)))
    """
    windows: list[tuple[float, float]] = []
    for cut in sorted(cuts.cuts_s):
        low, high = max(0.0, cut - cuts.margin_s), min(duration_s, cut + cuts.margin_s)
        if high <= low:
            continue
        if windows and low <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], high))
        else:
            windows.append((low, high))
    rest = []
    start = 0.0
    for low, high in windows:
        if low > start:
            rest.append((start, low))
        start = high
    if start < duration_s:
        rest.append((start, duration_s))
    return {"in_segment": tuple(rest), "across_cut": tuple(windows)}
