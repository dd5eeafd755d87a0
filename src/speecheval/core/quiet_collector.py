"""Keep the garbage collector's full passes short while packets are being sent.

Why: a recording sends a packet every 80 ms from one event loop, and a full (oldest
generation) collection stops that loop for as long as it takes to walk every object the
process holds. A recording process holds the whole command line's imports (click,
numpy, soundfile, websockets, pydantic, the dataset index): one full pass there took
about 100 ms, and it came at the same instant in every session of the process, so each
one sent a packet 80-160 ms late and failed ``input_pacing`` on an idle machine.

:func:`collector_frozen` moves what exists when the sessions start into the
collector's permanent generation (``gc.freeze``): a later full pass walks only what the
sessions themselves made, which is small and mostly freed by reference counting as each
session ends. Nothing is lost: frozen objects are still freed when their references
go, only cycles among them wait until :func:`collector_frozen` unfreezes them at the end.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_frozen() -> Iterator[int]:
    """Collect once, freeze what is left, yield how many objects were frozen; unfreeze
    on the way out so that the rest of the command collects as usual."""
    gc.collect()
    gc.freeze()
    try:
        yield gc.get_freeze_count()
    finally:
        gc.unfreeze()
