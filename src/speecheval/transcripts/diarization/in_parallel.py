"""Two independent steps of scoring one file, the second in a thread when the file is large.

numpy lets go of the interpreter lock inside its sorts, searches and array passes, which
are nearly all of the work on a file of many turns, so two such steps run on two cores
in about the time of the longer one. A small file is scored in one thread: a thread's
start would cost more than it saves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

A = TypeVar("A")
B = TypeVar("B")

FROM_TURNS = 1 << 17
"""Turns of a file (both sides) from which its independent steps run two at a time."""


def both(first: Callable[[], A], second: Callable[[], B], *, turns: int) -> tuple[A, B]:
    """``(first(), second())``, ``second`` in another thread when ``turns`` is at least
    :data:`FROM_TURNS` (an error of either is raised once both have ended).

    >>> both(lambda: 1, lambda: "two", turns=FROM_TURNS)
    (1, 'two')
    """
    if turns < FROM_TURNS:
        return first(), second()
    from concurrent.futures import ThreadPoolExecutor  # here: it imports logging

    with ThreadPoolExecutor(1, thread_name_prefix="der-step") as pool:
        later = pool.submit(second)
        return first(), later.result()
