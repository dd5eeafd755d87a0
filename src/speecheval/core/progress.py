"""Progress for work that takes minutes: a bar on a terminal, nothing anywhere else.

Why one place: every long command (scoring a tree, scoring a manifest, running sessions)
should behave the same way, so a user watching a terminal sees how far it is while CI
logs and redirected output stay byte-for-byte what they were. The bar goes to standard
error and never to a file speecheval writes.

``-q`` (:mod:`speecheval.core.log`) turns the bar off whatever else is set.
``SPEECHEVAL_PROGRESS=1`` forces the bar on (for example under a pager) and ``0`` forces
it off; otherwise it shows only when standard error is a terminal and ``CI`` is unset.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Protocol

from .log import shows_progress


class Advance(Protocol):
    """Called once per finished unit of work (``advance()``) or with a count."""

    def __call__(self, units: int = 1) -> None: ...


def progress_enabled(stream: IO[str]) -> bool:
    """Whether a bar belongs on ``stream`` (see the module docstring for the rule)."""
    if not shows_progress():
        return False
    forced = os.environ.get("SPEECHEVAL_PROGRESS")
    if forced in {"0", "1"}:
        return forced == "1"
    if os.environ.get("CI"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


@contextmanager
def progress(total: int, label: str, *, unit: str = "sample",
             stream: IO[str] | None = None, redraw_s: float = 0.2) -> Iterator[Advance]:
    """Yield an ``advance`` callback for ``total`` units of work labelled ``label``.

    When no bar is shown the callback does nothing, so callers never branch on it. The
    bar is redrawn at most every ``redraw_s`` seconds and erased when the work ends.
    """
    target = sys.stderr if stream is None else stream
    if not progress_enabled(target) or total <= 0:
        yield _do_nothing
        return
    from tqdm import tqdm  # type: ignore[import-untyped]  # imported here: only a terminal run pays for it

    bar = tqdm(total=total, desc=label, unit=unit, file=target, leave=False,
               dynamic_ncols=True, mininterval=redraw_s)
    try:
        yield bar.update
    finally:
        bar.close()


def _do_nothing(units: int = 1) -> None:
    """The callback when no bar is shown."""
