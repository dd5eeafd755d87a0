"""The frozen silence-aware chunker of ``production_complete_file/chunked``.

For a system that cannot take a whole file and has no official long-audio wrapper, the
spec allows speecheval's own frozen chunker as a sub-track, with the cut points, the
longest window, the overlap, the context passed on, the time offsets and the stitching
version in the identity. This one is frozen as version ``silence-aware/1``:

- the PCM is cut into chunks of at most ``max_window_s``; a chunk that is not the last
  ends at the quietest stretch of its last ``search_s`` seconds: the 30 ms frames' mean
  energy smoothed over ``smoothing_frames`` frames; of the stretches with the lowest value
  the middle one (the earlier of two middles), cut at its centre, on a frame boundary;
- no context: each chunk is decoded on its own; by default no overlap either;
- stitching ``offset/1``: each answer's times plus its chunk's start, segments kept whole
  in chunk order; a stitched segment that comes within ``cut_margin_s`` of a cut is
  ``across_cut``, the others ``in_segment``, so results near cuts are reported apart.

With ``overlap_s`` > 0 (``--chunk-overlap-s``) the cuts stay where they are, but each chunk
after the first is decoded from ``overlap_s`` before its cut (never before the previous
chunk's start), so adjacent chunks share that much audio: stitching ``overlap-owned/1``
moves each answer by where its audio begins and keeps a segment only in the chunk that
owns its midpoint (from its cut to the next cut), so the shared audio is not transcribed
twice, and the speakers are reconciled on it (:mod:`.reconcile`, ``overlap-match/1``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .input_audio import RATE, Pcm

VERSION = "silence-aware/1"
STITCHING = "offset/1"
OVERLAP_STITCHING = "overlap-owned/1"


@dataclass(frozen=True)
class ChunkerSettings:
    """Every parameter of the chunker (all in its identity)."""

    max_window_s: float = 30.0
    search_s: float = 10.0
    frame_ms: int = 30
    smoothing_frames: int = 10
    overlap_s: float = 0.0
    cut_margin_s: float = 1.0

    def identity(self) -> dict[str, Any]:
        if self.overlap_s > 0:
            return {"version": VERSION, **asdict(self),
                    "context": "none: each chunk is decoded on its own, from overlap_s "
                               "before its cut",
                    "stitching": {"version": OVERLAP_STITCHING,
                                  "rule": "chunk times + where the chunk's audio begins; a "
                                          "segment kept in the chunk owning its midpoint "
                                          "(its cut to the next); within cut_margin_s of "
                                          "a cut: across_cut, else in_segment"},
                    "reconciliation": {"version": "overlap-match/1",
                                       "rule": "each chunk's labels mapped onto the "
                                               "previous chunk's by shared speech time in "
                                               "the overlap, greedy, ties by label order"}}
        return {"version": VERSION, **asdict(self),
                "context": "none: each chunk is decoded on its own",
                "stitching": {"version": STITCHING,
                              "rule": "chunk times + chunk start; segments kept whole in "
                                      "chunk order; within cut_margin_s of a cut: "
                                      "across_cut, else in_segment"}}


def windows(chunks: list[tuple[int, int]], overlap: int) -> list[tuple[int, int, int]]:
    """``(audio start, cut, end)`` sample indices of each chunk of a plan: the audio of a
    chunk after the first begins ``overlap`` samples before its cut, never before the
    previous chunk's cut.

    >>> windows([(0, 100), (100, 250), (250, 300)], 30)
    [(0, 0, 100), (70, 100, 250), (220, 250, 300)]
    >>> windows([(0, 100), (100, 120), (120, 300)], 30)
    [(0, 0, 100), (70, 100, 120), (100, 120, 300)]
    """
    found = []
    for index, (cut, end) in enumerate(chunks):
        start = cut if index == 0 else max(chunks[index - 1][0], cut - overlap)
        found.append((start, cut, end))
    return found


def plan(pcm: Pcm, settings: ChunkerSettings) -> list[tuple[int, int]]:
    """The chunks of ``pcm`` as (start, end) sample indices, covering it end to end.

    >>> quiet = np.zeros(RATE * 5, np.int16)
    >>> loud = np.full(RATE * 20, 3000, np.int16)
    >>> pcm = Pcm(np.concatenate([loud, quiet, loud, quiet, loud]))  # 20+5+20+5+20 s
    >>> [(a / RATE, b / RATE) for a, b in plan(pcm, ChunkerSettings())]
    [(0.0, 22.5), (22.5, 47.49), (47.49, 70.0)]

    (First cut: the smoothed windows wholly inside the 20-25 s silence start at frames
    667..823, the middle one 745, cut at (745 + 5) * 30 ms = 22.5 s. Second: frames
    1500..1656 of the 45-50 s silence, middle 1578, cut at 1583 * 30 ms = 47.49 s.)
    """
    frame = RATE * settings.frame_ms // 1000
    n = int(pcm.samples.size)
    usable = n // frame * frame
    energy = (pcm.samples[:usable].astype(np.float64) ** 2).reshape(-1, frame).mean(axis=1)
    width = settings.smoothing_frames
    sums = np.concatenate([[0.0], np.cumsum(energy)])
    smoothed = (sums[width:] - sums[:-width]) / width if energy.size >= width else energy
    max_len = round(settings.max_window_s * RATE)
    chunks = []
    start = 0
    while n - start > max_len:
        lo = start + max_len - round(settings.search_s * RATE)
        hi = start + max_len - (width * frame)
        first, last = -(-lo // frame), hi // frame
        window = smoothed[first:last + 1]
        if window.size == 0:
            cut = start + max_len
        else:
            lowest = np.flatnonzero(window == window.min())
            best = first + int(lowest[(lowest.size - 1) // 2])
            cut = (best + width // 2) * frame
        chunks.append((start, cut))
        start = cut
    chunks.append((start, n))
    return chunks


def region(start_s: float, end_s: float, cuts_s: list[float], margin_s: float) -> str:
    """``across_cut`` if ``[start_s, end_s]`` comes within ``margin_s`` of a cut, else
    ``in_segment``.

    >>> region(10.0, 12.0, [30.0], 1.0), region(28.5, 29.5, [30.0], 1.0)
    ('in_segment', 'across_cut')
    """
    near = any(start_s - margin_s <= cut <= end_s + margin_s for cut in cuts_s)
    return "across_cut" if near else "in_segment"
