"""Ask the kernel for short scheduler slices for the calling thread (Linux EEVDF).

Why: a recording sends a packet every 80 ms and must not be late by more than 80 ms.
On a busy machine the thread that sends competes with every runnable process for the
CPUs, and the fair scheduler (EEVDF, Linux 6.6 on) lets a woken task run when its
virtual deadline is the earliest, the deadline being its slice divided by its weight.
A recording run under ``nice`` (a low weight) beside CPU-bound processes therefore
waits tens to hundreds of milliseconds after each timer fires: measured on a 2-core
machine at load average 6, ``nice -n 10`` and four busy processes made even one session
at a time send 72 ms late, and eight at once 420 ms. The sender does a few microseconds
of work per packet, so it needs no larger share of the CPUs, only to run soon after it
wakes: a short slice (``sched_attr.sched_runtime`` of a fair task, Linux 6.12 on) gives
exactly that, needs no privilege and keeps the niceness (and so the share) as it is.

Elsewhere (another system, an older kernel that ignores the field, a thread under
another scheduling policy) nothing changes; the result says what happened.
"""

from __future__ import annotations

import ctypes
import os
import platform

SLICE_NS = 500_000
"""The slice asked for: 0.5 ms (the kernel accepts 0.1 to 100 ms)."""
SCHED_OTHER = 0
SYSCALL_SCHED_SETATTR = {"x86_64": 314, "aarch64": 274}


class _SchedAttr(ctypes.Structure):
    """``struct sched_attr`` as sched_setattr(2) reads it (its first version, 48 bytes)."""

    _fields_ = [("size", ctypes.c_uint32), ("sched_policy", ctypes.c_uint32),
                ("sched_flags", ctypes.c_uint64), ("sched_nice", ctypes.c_int32),
                ("sched_priority", ctypes.c_uint32), ("sched_runtime", ctypes.c_uint64),
                ("sched_deadline", ctypes.c_uint64), ("sched_period", ctypes.c_uint64)]


def request_short_slice(slice_ns: int = SLICE_NS) -> str:
    """Ask for ``slice_ns`` slices for the calling thread, its niceness unchanged;
    returns what happened, in words (``"set"`` when the kernel took the request)."""
    number = SYSCALL_SCHED_SETATTR.get(platform.machine())
    if platform.system() != "Linux" or number is None:
        return f"not available on {platform.system()} {platform.machine()}"
    try:
        if os.sched_getscheduler(0) != SCHED_OTHER:
            return "left as it is: the thread is not under the normal policy"
        nice = os.getpriority(os.PRIO_PROCESS, 0)
        libc = ctypes.CDLL(None, use_errno=True)
    except (OSError, AttributeError) as exc:
        return f"not available: {exc}"
    # sched_nice is the current niceness, so even a privileged caller keeps its share
    attr = _SchedAttr(ctypes.sizeof(_SchedAttr), SCHED_OTHER, 0, nice, 0, slice_ns, 0, 0)
    if libc.syscall(number, 0, ctypes.byref(attr), 0) != 0:
        return f"refused: {os.strerror(ctypes.get_errno())}"
    return "set"
