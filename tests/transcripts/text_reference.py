"""Independent reference implementations used by the text-scoring tests."""

from __future__ import annotations


def reference_distance(a: list[str], b: list[str]) -> int:
    """Textbook Wagner-Fischer, written independently of the code under test."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        cur = [i]
        for j, y in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]
