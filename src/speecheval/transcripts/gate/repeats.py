"""Exact adjacent repeats of fixed-length token blocks, vectorised.

A decoder stuck in a loop writes the same words again and again. The spec fixes the check:
a block of ``n`` normalized tokens (n = 12, 24, 48, 96) immediately followed by the same
``n`` tokens. With the tokens as integer ids ``a``, the block at ``i`` repeats exactly when
``a[i + k] == a[i + n + k]`` for every ``k < n``: a run of ``n`` true values in the
element-wise comparison of ``a`` with itself shifted by ``n``, which a cumulative sum finds
for every ``i`` at once. The comparison is exact (no hashing, so no collisions), and linear
in the number of tokens for each window.

Overlapping hits of one loop are merged into one *repeat region*: consecutive positions
``i`` belong to the same region, which covers tokens ``[first, last + 2n)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class RepeatRegion:
    """Tokens ``[start, stop)`` where a block of ``window`` tokens repeats back to back."""

    window: int
    start: int
    stop: int


def token_ids(tokens: Sequence[str]) -> NDArray[np.int64]:
    """Each token as a small integer, equal tokens equal ids.

    >>> token_ids(["a", "b", "a"]).tolist()
    [0, 1, 0]
    """
    ids = {token: i for i, token in enumerate(dict.fromkeys(tokens))}
    return np.array(list(map(ids.__getitem__, tokens)), dtype=np.int64)


def repeat_regions(ids: NDArray[np.int64], window: int) -> list[RepeatRegion]:
    """Regions where a block of ``window`` tokens is followed by the same block.

    >>> ids = np.array([9] + [1, 2, 3] * 3 + [7])
    >>> repeat_regions(ids, 3)  # 1 2 3 | 1 2 3 | 1 2 3: blocks at 1..4 repeat; region 1..10
    [RepeatRegion(window=3, start=1, stop=10)]
    >>> repeat_regions(ids, 4)  # a period of 3 never repeats a block of 4 exactly
    []
    """
    if ids.size < 2 * window:
        return []
    same = (ids[:-window] == ids[window:]).astype(np.int64)
    running = np.concatenate(([0], np.cumsum(same)))
    # The block at i repeats iff same[i:i + window] is all true.
    starts = np.flatnonzero(running[window:] - running[:-window] == window)
    if starts.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(starts) > 1)
    firsts = np.concatenate(([starts[0]], starts[breaks + 1]))
    lasts = np.concatenate((starts[breaks], [starts[-1]]))
    return [RepeatRegion(window, int(first), int(last) + 2 * window)
            for first, last in zip(firsts, lasts, strict=True)]
