"""YAML documents that stay small on disk and grow without end when expanded."""

from __future__ import annotations


def billion_laughs(levels: int) -> str:
    """The "billion laughs": anchor ``l0`` holds 9 strings and each ``l<i>`` 9 aliases of
    ``l<i-1>``, so ``l<levels-1>`` expands to ``9 ** levels`` strings from
    ``1 + 11 * levels`` written nodes (the root, and per level a key, a list and its 9
    items). 9 levels is the classic one: 387 million strings from 100 nodes."""
    lines = ["l0: &l0 [" + ", ".join(["lol"] * 9) + "]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"
