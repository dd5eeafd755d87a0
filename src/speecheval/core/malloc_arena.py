"""glibc malloc settings for a command that scores large arrays in threads.

One arena (:func:`share_one_arena`):

glibc's malloc gives each new thread an arena of its own, and memory a thread frees goes
back to that thread's arena, where no other thread can reuse it. A command that frees
large numpy arrays in its main thread and then works in a thread pool (or the other way
round) keeps the freed memory of every arena resident beside the new arrays:
``transcripts der`` on a million turns a side peaked at 316 MB that way, and at 269 MB
with every thread served from one arena. The arrays are few and large, so the threads
hardly ever wait for the shared arena's lock.

It must be set before the first thread allocates; elsewhere than glibc it does nothing.

Freed memory kept for the next arrays (:func:`keep_freed_memory`): see there.
"""

from __future__ import annotations

M_ARENA_MAX = -8
"""mallopt(3)'s parameter: the most arenas glibc's malloc makes."""
M_TRIM_THRESHOLD = -1
"""mallopt(3)'s parameter: free memory at the heap's top above this goes back to the system."""
M_MMAP_THRESHOLD = -3
"""mallopt(3)'s parameter: blocks from this size up get a mapping of their own."""
KEPT_BLOCK_BYTES = 32 << 20
"""Blocks up to this size come from the heap (:func:`keep_freed_memory`)."""
KEPT_FREE_BYTES = 128 << 20
"""Free memory up to this much stays at the heap's top (:func:`keep_freed_memory`)."""


def share_one_arena() -> bool:
    """Have glibc's malloc serve every thread from one arena; whether it was set."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # no C library by that name, no mallopt
        return False
    return bool(mallopt(M_ARENA_MAX, 1))


def keep_freed_memory() -> bool:
    """Have glibc's malloc serve blocks up to :data:`KEPT_BLOCK_BYTES` from the heap and
    keep up to :data:`KEPT_FREE_BYTES` of freed memory there; whether both were set.

    Why: by default a block above a threshold (128 kB at first, raised to the size of
    each larger block freed, up to 32 MB) gets a mapping of its own, handed back when it
    is freed, and free memory at the heap's top beyond twice the threshold goes back
    too; every page of the next array is then faulted in and zeroed by the kernel again.
    Scoring a million turns a side allocates and frees arrays of a few to 30 MB hundreds
    of times: 70,000-100,000 minor page faults with the defaults, about 55,000 with these
    settings, for 5-12 % less CPU time and 3-7 MB more at the peak (medians of alternating
    runs: 259-268 MB against 256-265 MB; the memory kept is reused by the next arrays, but
    the heap's holes fit them less well than fresh mappings). Blocks up to 64 MB and
    256 MB kept made 37,000 faults and held a few MB more again. Elsewhere than glibc it
    does nothing.
    """
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # no C library by that name, no mallopt
        return False
    blocks = mallopt(M_MMAP_THRESHOLD, KEPT_BLOCK_BYTES)
    kept = mallopt(M_TRIM_THRESHOLD, KEPT_FREE_BYTES)
    return bool(blocks and kept)
