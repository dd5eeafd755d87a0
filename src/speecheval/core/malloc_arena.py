"""One malloc arena for all the threads of a command that scores in threads (glibc).

glibc's malloc gives each new thread an arena of its own, and memory a thread frees goes
back to that thread's arena, where no other thread can reuse it. A command that frees
large numpy arrays in its main thread and then works in a thread pool (or the other way
round) keeps the freed memory of every arena resident beside the new arrays:
``transcripts der`` on a million turns a side peaked at 316 MB that way, and at 269 MB
with every thread served from one arena. The arrays are few and large, so the threads
hardly ever wait for the shared arena's lock.

It must be set before the first thread allocates; elsewhere than glibc it does nothing.
"""

from __future__ import annotations

M_ARENA_MAX = -8
"""mallopt(3)'s parameter: the most arenas glibc's malloc makes."""


def share_one_arena() -> bool:
    """Have glibc's malloc serve every thread from one arena; whether it was set."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # no C library by that name, no mallopt
        return False
    return bool(mallopt(M_ARENA_MAX, 1))
