"""Optimal one-to-one assignment (the linear sum assignment problem) without scipy.optimize.

Speaker mapping (DER, JER) and speaker pairing (cpWER) each solve one small assignment, a
few dozen speakers at most. ``scipy.optimize`` costs about half a second to import, which
was most of a ``speecheval transcripts der`` or ``cp`` run; this module costs nothing.

The method is the shortest augmenting path algorithm for rectangular problems (D. F.
Crouse, "On implementing 2D rectangular assignment algorithms", IEEE Trans. Aerospace
and Electronic Systems 52(4), 2016): one row at a time, a Dijkstra-like search over
reduced costs finds the cheapest way to give that row a column, and the dual variables
are updated so reduced costs stay non-negative. It is the method behind
``scipy.optimize.linear_sum_assignment``, with the same scan order and the same rule
between equal costs (prefer a free column, the later one in scan order), so the same
pairs come out where several assignments are optimal: a DER mapping or a cpWER pairing
does not change with the solver. ``tests/core/test_assignment.py`` checks that against
scipy on matrices full of ties.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

Pairs = tuple[NDArray[np.intp], NDArray[np.intp]]


def linear_sum_assignment(cost: ArrayLike, maximize: bool = False) -> Pairs:
    """Rows and columns of an optimal one-to-one assignment: ``min(n_rows, n_cols)`` pairs,
    rows in increasing order.

    >>> rows, cols = linear_sum_assignment([[4, 1, 3], [2, 0, 5], [3, 2, 2]])
    >>> rows.tolist(), cols.tolist()
    ([0, 1, 2], [1, 0, 2])
    >>> rows, cols = linear_sum_assignment([[5, 4], [4, 0]], maximize=True)
    >>> cols.tolist()
    [1, 0]
    """
    matrix = np.array(cost, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"the cost matrix must be 2-D, got shape {matrix.shape}")
    if not np.isfinite(matrix).all():
        raise ValueError("the cost matrix holds a value that is not finite")
    transposed = matrix.shape[1] < matrix.shape[0]
    if transposed:
        matrix = matrix.T
    if maximize:
        matrix = -matrix
    col4row = _solve(matrix.tolist(), *matrix.shape)
    if transposed:
        order = np.argsort(col4row)
        return col4row[order], order.astype(np.intp)
    return np.arange(matrix.shape[0], dtype=np.intp), col4row


def _solve(cost: list[list[float]], n_rows: int, n_cols: int) -> NDArray[np.intp]:
    """The column of each row (``n_rows <= n_cols``), minimising the total cost."""
    u = [0.0] * n_rows  # dual variable of each row
    v = [0.0] * n_cols  # dual variable of each column
    path = [-1] * n_cols
    col4row = [-1] * n_rows
    row4col = [-1] * n_cols
    for current in range(n_rows):
        shortest = [math.inf] * n_cols
        seen_rows = [False] * n_rows
        seen_cols = [False] * n_cols
        remaining = [n_cols - it - 1 for it in range(n_cols)]
        min_value = 0.0
        sink = -1
        row = current
        while sink == -1:
            seen_rows[row] = True
            index, lowest = -1, math.inf
            for it, col in enumerate(remaining):
                reduced = min_value + cost[row][col] - u[row] - v[col]
                if reduced < shortest[col]:
                    path[col] = row
                    shortest[col] = reduced
                if shortest[col] < lowest or (shortest[col] == lowest and row4col[col] == -1):
                    lowest, index = shortest[col], it
            min_value = lowest
            col = remaining[index]
            if row4col[col] == -1:
                sink = col
            else:
                row = row4col[col]
            seen_cols[col] = True
            remaining[index] = remaining[-1]
            remaining.pop()
        u[current] += min_value
        for r in range(n_rows):
            if seen_rows[r] and r != current:
                u[r] += min_value - shortest[col4row[r]]
        for c in range(n_cols):
            if seen_cols[c]:
                v[c] -= min_value - shortest[c]
        col = sink
        while True:
            row = path[col]
            row4col[col] = row
            col4row[row], col = col, col4row[row]
            if row == current:
                break
    return np.array(col4row, dtype=np.intp)
