"""Exact adjacent repeats of fixed-length token blocks, vectorised.

A decoder stuck in a loop writes the same words again and again. The spec fixes the
windows: blocks of ``n`` normalized tokens (n = 12, 24, 48, 96) repeated back to back. A
block is taken as repeated when the same ``n`` tokens start again at most ``n`` tokens
later: at exactly ``n`` later the copy abuts the block (``A A``), closer it overlaps it,
which is what a loop whose period ``p`` is shorter than ``n`` looks like. Taking only the
copy exactly ``n`` later would miss any loop whose period does not divide ``n``: a
13-token sentence repeated a hundred times never puts a block of 12, 24, 48 or 96 tokens
right after its own copy.

With the tokens as integer ids ``a``, the block at ``i`` has a copy ``p`` later when
``a[i + k] == a[i + p + k]`` for every ``k < n``: a run of ``n`` true values in the
comparison of ``a`` with itself shifted by ``p``, which a cumulative sum finds for every
``i`` at once; each shift ``p`` up to the largest window is compared once. The comparison
is exact (no hashing, so no collisions).

Overlapping hits of one loop are merged into one *repeat region*: consecutive block
starts belong to the same region, which covers every token of the blocks and their copies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class RepeatRegion:
    """Tokens ``[start, stop)`` where blocks of ``window`` tokens repeat; ``period`` is the
    shortest distance from the first block to its copy."""

    window: int
    start: int
    stop: int
    period: int

    @property
    def repeated_tokens(self) -> int:
        """Tokens of the region after its first period (the copies)."""
        return self.stop - self.start - self.period


def token_ids(tokens: Sequence[str]) -> NDArray[np.int64]:
    """Each token as a small integer, equal tokens equal ids.

    >>> token_ids(["a", "b", "a"]).tolist()
    [0, 1, 0]
    """
    ids = {token: i for i, token in enumerate(dict.fromkeys(tokens))}
    return np.array(list(map(ids.__getitem__, tokens)), dtype=np.int64)


def repeat_regions(ids: NDArray[np.int64],
                   windows: Sequence[int]) -> dict[int, list[RepeatRegion]]:
    """For each window ``n``, the regions where a block of ``n`` tokens starts again at
    most ``n`` tokens later.

    >>> ids = np.array([9] + [1, 2, 3] * 3 + [7])
    >>> repeat_regions(ids, [3, 4])[3]  # 1 2 3 | 1 2 3 | 1 2 3: blocks at 1..4 repeat
    [RepeatRegion(window=3, start=1, stop=10, period=3)]
    >>> repeat_regions(ids, [3, 4])[4]  # the blocks at 1, 2 and 3 start again 3 later
    [RepeatRegion(window=4, start=1, stop=10, period=3)]
    """
    # (first block start, last block start, shift) of every run of repeating blocks
    spans: dict[int, list[tuple[int, int, int]]] = {n: [] for n in windows}
    shortest = min(windows)
    for shift in range(1, min(max(windows), int(ids.size) - 1) + 1):
        equal = np.flatnonzero(ids[:-shift] == ids[shift:])
        if equal.size < shortest:
            continue
        # runs of consecutive equal positions: a block of n inside one run has its copy
        breaks = np.flatnonzero(np.diff(equal) != 1)
        firsts = equal[np.concatenate(([0], breaks + 1))]
        lasts = equal[np.concatenate((breaks, [equal.size - 1]))]
        for run in np.flatnonzero(lasts - firsts + 1 >= shortest):
            first, last = int(firsts[run]), int(lasts[run])
            for n in windows:
                if shift <= n and last - first + 1 >= n:
                    spans[n].append((first, last - n + 1, shift))
    return {n: _regions(n, sorted(spans[n])) for n in windows}


def _regions(window: int, spans: list[tuple[int, int, int]]) -> list[RepeatRegion]:
    """Spans of block starts (sorted) merged into regions where the starts are consecutive
    or overlap; a region's period is the shortest shift at its first block."""
    merged: list[list[int]] = []  # [first start, last start, stop, period]
    for first, last, shift in spans:
        stop = last + window + shift
        if merged and first <= merged[-1][1] + 1:
            head = merged[-1]
            if first == head[0]:
                head[3] = min(head[3], shift)
            head[1], head[2] = max(head[1], last), max(head[2], stop)
        else:
            merged.append([first, last, stop, shift])
    return [RepeatRegion(window, first, stop, period) for first, _, stop, period in merged]
